// Package backend implements the example's shelter API in memory, so the
// demo and the tests run the generated server against a real HTTP backend.
package backend

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"sync"
)

// Key is the API key the backend accepts in X-Shelter-Key.
const Key = "demo-shelter-key"

type pet struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Species   string `json:"species"`
	AgeMonths int    `json:"age_months"`
	Status    string `json:"status"`
}

// Shelter is the backend's state.
type Shelter struct {
	mu   sync.Mutex
	pets []*pet
	next int
}

// New returns a shelter with three pets.
func New() *Shelter {
	return &Shelter{pets: []*pet{
		{ID: "p_17", Name: "Biscuit", Species: "dog", AgeMonths: 14, Status: "available"},
		{ID: "p_18", Name: "Miso", Species: "cat", AgeMonths: 30, Status: "available"},
		{ID: "p_19", Name: "Clover", Species: "rabbit", AgeMonths: 8, Status: "adopted"},
	}, next: 500}
}

// Handler serves the API under /v1.
func (s *Shelter) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/pets", s.list)
	mux.HandleFunc("GET /v1/pets/{petId}", s.get)
	mux.HandleFunc("POST /v1/pets/{petId}/adoptions", s.adopt)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Shelter-Key") != Key {
			reply(w, http.StatusUnauthorized, map[string]string{"code": "unauthorized", "message": "missing or wrong X-Shelter-Key"})
			return
		}
		mux.ServeHTTP(w, r)
	})
}

func (s *Shelter) list(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	q := r.URL.Query()
	status := q.Get("status")
	if status == "" {
		status = "available"
	}
	limit := 20
	if l, err := strconv.Atoi(q.Get("limit")); err == nil {
		limit = l
	}
	out := []*pet{}
	for i := len(s.pets) - 1; i >= 0 && len(out) < limit; i-- {
		p := s.pets[i]
		if p.Status == status && (q.Get("species") == "" || p.Species == q.Get("species")) {
			out = append(out, p)
		}
	}
	reply(w, http.StatusOK, out)
}

func (s *Shelter) find(id string) *pet {
	for _, p := range s.pets {
		if p.ID == id {
			return p
		}
	}
	return nil
}

func (s *Shelter) get(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.find(r.PathValue("petId"))
	if p == nil {
		reply(w, http.StatusNotFound, map[string]string{"code": "not_found", "message": fmt.Sprintf("no pet with id %q", r.PathValue("petId"))})
		return
	}
	reply(w, http.StatusOK, p)
}

func (s *Shelter) adopt(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.find(r.PathValue("petId"))
	if p == nil {
		reply(w, http.StatusNotFound, map[string]string{"code": "not_found", "message": fmt.Sprintf("no pet with id %q", r.PathValue("petId"))})
		return
	}
	var body struct {
		Adopter string `json:"adopter"`
	}
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil || body.Adopter == "" {
		reply(w, http.StatusUnprocessableEntity, map[string]string{"code": "invalid", "message": "adopter is required"})
		return
	}
	if p.Status == "adopted" {
		reply(w, http.StatusConflict, map[string]string{"code": "already_adopted", "message": p.Name + " has already been adopted"})
		return
	}
	p.Status = "adopted"
	s.next++
	fee := 80
	if p.AgeMonths > 24 {
		fee = 50
	}
	reply(w, http.StatusCreated, map[string]any{"adoption_id": fmt.Sprintf("ad_%d", s.next), "pet_id": p.ID, "adopter": body.Adopter, "fee": fee})
}

func reply(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}
