// Package backend is the tracker example's API: an in-memory code host with
// repositories and issues, answering like the public APIs people wrap (no
// preview endpoint for any write). It records every request that changes
// data, so tests and the demo can show what was sent.
package backend

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"sync"
)

// Token is the bearer token the API accepts.
const Token = "trk_demo_token_3f9a"

// Repo is a repository with its issues.
type Repo struct {
	FullName    string   `json:"full_name"`
	Description string   `json:"description"`
	Stars       int      `json:"stars"`
	Archived    bool     `json:"archived"`
	Issues      []*Issue `json:"-"`
}

// Issue is one issue of a repository.
type Issue struct {
	Number      int     `json:"number"`
	Title       string  `json:"title"`
	Body        string  `json:"body,omitempty"`
	State       string  `json:"state"`
	StateReason *string `json:"state_reason"`
	Comments    int     `json:"comments"`
}

// Write is a request that changed data.
type Write struct {
	Method, Path, Body string
}

// Tracker is the API's state.
type Tracker struct {
	mu     sync.Mutex
	repos  map[string]*Repo
	writes []Write
}

// New returns a tracker with the example's data: acme/site with 41 open
// issues, and acme/tools.
func New() *Tracker {
	t := &Tracker{repos: map[string]*Repo{}}
	site := &Repo{FullName: "acme/site", Description: "The public web site", Stars: 12}
	for i := 1; i <= 43; i++ {
		is := &Issue{Number: i, Title: "Site issue " + strconv.Itoa(i), State: "open"}
		if i == 7 {
			is.Title = "Broken link on the pricing page"
			is.Comments = 3
		}
		if i > 41 {
			is.State = "closed"
		}
		site.Issues = append(site.Issues, is)
	}
	t.repos["acme/site"] = site
	t.repos["acme/tools"] = &Repo{FullName: "acme/tools", Description: "Internal tools", Stars: 2,
		Issues: []*Issue{{Number: 1, Title: "Upgrade the build image", State: "open"}}}
	return t
}

// Writes returns the requests that changed data, in order.
func (t *Tracker) Writes() []Write {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]Write(nil), t.writes...)
}

// Repo returns a repository, or nil once deleted.
func (t *Tracker) Repo(fullName string) *Repo {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.repos[fullName]
}

func (r *Repo) view() map[string]any {
	open := 0
	for _, is := range r.Issues {
		if is.State == "open" {
			open++
		}
	}
	return map[string]any{"full_name": r.FullName, "description": r.Description, "open_issues_count": open, "stars": r.Stars, "archived": r.Archived}
}

// Handler serves the API.
func (t *Tracker) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.Header.Get("Authorization") != "Bearer "+Token {
			reply(w, http.StatusUnauthorized, map[string]any{"message": "Bad credentials"})
			return
		}
		parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
		if len(parts) < 3 || parts[0] != "repos" {
			reply(w, http.StatusNotFound, map[string]any{"message": "Not Found"})
			return
		}
		t.mu.Lock()
		defer t.mu.Unlock()
		var body map[string]any
		if r.Method != http.MethodGet {
			var raw json.RawMessage
			json.NewDecoder(r.Body).Decode(&raw)
			json.Unmarshal(raw, &body)
			t.writes = append(t.writes, Write{Method: r.Method, Path: r.URL.Path, Body: string(raw)})
		}
		repo := t.repos[parts[1]+"/"+parts[2]]
		if repo == nil {
			reply(w, http.StatusNotFound, map[string]any{"message": "Not Found"})
			return
		}
		switch {
		case len(parts) == 3 && r.Method == http.MethodGet:
			reply(w, http.StatusOK, repo.view())
		case len(parts) == 3 && r.Method == http.MethodDelete:
			delete(t.repos, repo.FullName)
			w.WriteHeader(http.StatusNoContent)
		case len(parts) == 4 && parts[3] == "issues" && r.Method == http.MethodGet:
			state := r.URL.Query().Get("state")
			if state == "" {
				state = "open"
			}
			out := []*Issue{}
			for _, is := range repo.Issues {
				if state == "all" || is.State == state {
					out = append(out, is)
				}
			}
			reply(w, http.StatusOK, out)
		case len(parts) == 4 && parts[3] == "issues" && r.Method == http.MethodPost:
			title, _ := body["title"].(string)
			text, _ := body["body"].(string)
			is := &Issue{Number: len(repo.Issues) + 1, Title: title, Body: text, State: "open"}
			repo.Issues = append(repo.Issues, is)
			reply(w, http.StatusCreated, is)
		case len(parts) == 5 && parts[3] == "issues":
			n, err := strconv.Atoi(parts[4])
			if err != nil || n < 1 || n > len(repo.Issues) {
				reply(w, http.StatusNotFound, map[string]any{"message": "Not Found"})
				return
			}
			is := repo.Issues[n-1]
			if r.Method == http.MethodPatch {
				if s, ok := body["state"].(string); ok {
					is.State = s
				}
				if s, ok := body["state_reason"].(string); ok {
					is.StateReason = &s
				}
				if s, ok := body["title"].(string); ok {
					is.Title = s
				}
			}
			reply(w, http.StatusOK, is)
		default:
			reply(w, http.StatusMethodNotAllowed, map[string]any{"message": "Method not allowed"})
		}
	})
}

func reply(w http.ResponseWriter, status int, v any) {
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}
