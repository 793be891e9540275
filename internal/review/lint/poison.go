package lint

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/tailormcp/tailor/internal/confusable"
	"github.com/tailormcp/tailor/internal/diag"
	"github.com/tailormcp/tailor/internal/generate/overlay"
)

// Tool poisoning hides instructions for the model in text the model reads.
// The text is matched after normalisation, so that the usual disguises do
// not help: compatibility forms (fullwidth letters, ligatures) are folded
// by NFKC; invisible characters (zero-width, bidi controls, Unicode tags)
// are removed and reported on their own; whitespace, line breaks included,
// is folded to single spaces; and letters of other scripts that look like
// Latin ones (Cyrillic о, Greek ο) are mapped to them (package
// confusable), for the English patterns. The patterns for
// other languages run on the text before that mapping.

// invisible classifies characters that render as nothing or reorder what
// is shown: text hidden from a reviewer but read by the model. Bidi
// overrides and isolates, and Unicode tag characters (ASCII smuggled
// invisibly), have no business in API text; zero-width characters and
// directional marks do occur legitimately (a break opportunity after a
// dash, a mark in right-to-left text) and count only inside a word, which
// they split to get past filters.
func invisible(r rune) (hidden, onlyInWord bool) {
	switch {
	case r >= '\u202a' && r <= '\u202e', r >= '\u2066' && r <= '\u2069', r >= 0xe0000 && r <= 0xe007f:
		return true, false
	case r == '\u200b', r == '\u200c', r == '\u200d', r == '\u2060', r == '\u2061', r == '\u2062', r == '\u2063', r == '\u2064',
		r == '\ufeff', r == '\u00ad', r == '\u180e', r == '\u034f', r == '\u200e', r == '\u200f', r == '\u061c':
		return true, true
	}
	return false, false
}

// normalized is text prepared for matching.
type normalized struct {
	native string // NFKC, invisible characters removed, whitespace folded
	latin  string // native with look-alike letters mapped to Latin
	hidden []rune // the invisible characters found
}

func normalize(s string) normalized {
	var n normalized
	s = norm.NFKC.String(s)
	var b strings.Builder
	space := false
	for i, r := range s {
		if hidden, inWord := invisible(r); hidden {
			if !inWord || wordAround(s, i, r) {
				n.hidden = append(n.hidden, r)
			}
			continue
		}
		switch {
		case unicode.IsSpace(r):
			space = true
			continue
		}
		if space && b.Len() > 0 {
			b.WriteByte(' ')
		}
		space = false
		b.WriteRune(r)
	}
	n.native = b.String()
	var l strings.Builder
	for _, r := range n.native {
		if r < utf8.RuneSelf {
			l.WriteRune(r)
			continue
		}
		if sk := confusable.Latin(r); sk != "" {
			l.WriteString(sk)
			continue
		}
		l.WriteRune(r)
	}
	n.latin = l.String()
	return n
}

// wordAround reports whether the character r at s[i] stands between two
// letters or digits (skipping other invisible characters).
func wordAround(s string, i int, r rune) bool {
	isWord := func(c rune) bool { return unicode.IsLetter(c) || unicode.IsDigit(c) }
	before := strings.TrimRightFunc(s[:i], func(c rune) bool { h, _ := invisible(c); return h })
	after := strings.TrimLeftFunc(s[i+utf8.RuneLen(r):], func(c rune) bool { h, _ := invisible(c); return h })
	prev, _ := utf8.DecodeLastRuneInString(before)
	next, _ := utf8.DecodeRuneInString(after)
	return isWord(prev) && isWord(next)
}

type poisonPattern struct {
	re   *regexp.Regexp
	what string
}

// english patterns run on the Latin-folded text. The patterns are
// compiled when first used (tailor lint and init): at package
// initialisation they cost every run of tailor a millisecond.
var english = sync.OnceValue(func() []poisonPattern {
	return []poisonPattern{
		{regexp.MustCompile(`(?i)\b(ignore|disregard|forget|override|bypass)\b[^.]{0,20}\b(previous|prior|above|earlier|preceding|all|any|other|system|your)\b[^.]{0,20}\b(instructions?|prompts?|messages?|rules|guidelines|directives?)`), "tells the model to ignore its instructions"},
		{regexp.MustCompile(`(?i)<\s*/?\s*(important|system|instructions?|secret|admin|hidden)\s*>|<\|\s*(im_start|start_header_id)\s*\|>\s*(system|assistant|developer)|<<\s*/?\s*sys\s*>>`), "carries a pseudo-tag addressed to the model"},
		{regexp.MustCompile(`(?i)\[\s*(system|admin|administrator|developer|assistant|operator|important)\s*(message|note|notice|prompt)?\s*\]|(^|[.!?] |#+ ?)(system|assistant|developer) ?(message|prompt|note)? ?: `), "speaks as the system or the assistant"},
		{regexp.MustCompile(`(?i)\bnew (system )?(policy|policies|instructions?|directives?|rules?)\b ?[:\-—]|\b(from now on|starting now|henceforth),? (you|the (assistant|model|ai)) (must|will|should|are)\b|\byou are now (in|a|an|the)\b`), "announces new instructions for the model"},
		{regexp.MustCompile(`(?i)\b(read|open|cat|load|attach|upload|send|include|access)\b[^.]{0,60}(~/\.|/etc/(passwd|shadow|hosts)|\.ssh\b|id_rsa|id_ed25519|\.env\b|\.aws/|\.netrc|\.npmrc|\.git-credentials|mcp\.json|claude_desktop_config)`), "asks to read local files"},
		{regexp.MustCompile(`(?i)\b(send|forward|upload|post|email|exfiltrate|leak|share|pass|include)\b[^.]{0,60}\b(secrets?|passwords?|credentials|private keys?|ssh keys?|tokens?|api[ _-]?keys?|conversation|chat history|system prompt)\b[^.]{0,40}\b(to|into) (https?://|[\w.+-]+@[\w-]+\.|the (sidenote|notes?|comment|url|address|following))`), "asks to send secrets somewhere"},
		{regexp.MustCompile(`(?i)\b(do not|don't|never)\s+(tell|inform|mention|reveal|show|alert|notify|let)\b[^.]{0,30}\buser\b|\bwithout (telling|informing|asking|notifying|alerting) the user\b`), "asks to hide something from the user"},
		{regexp.MustCompile(`(?i)\b(reveal|print|output|repeat|leak)\b[^.]{0,30}\b(system prompt|your instructions|the instructions above)\b`), "asks for the system prompt"},
	}
})

// foreign patterns run on the NFKC text: the same instructions in the
// languages injected text most often uses.
var foreign = sync.OnceValue(func() []poisonPattern {
	return []poisonPattern{
		{regexp.MustCompile(`(?i)\bignore[zr]?\b[^.]{0,25}\b(les |toutes les )?(instructions|consignes|règles)\b[^.]{0,15}\b(précédentes|antérieures|ci-dessus)|\bignoriere?n?\b[^.]{0,25}\b(vorherigen|bisherigen|obigen|alle)\b[^.]{0,15}\b(anweisungen|instruktionen|regeln)|\bvergiss\b[^.]{0,25}\b(anweisungen|instruktionen|regeln)|\bignora[rd]?\b[^.]{0,25}\b(las |todas las |le |tutte le )?(instrucciones|istruzioni|indicaciones|reglas|regole)\b[^.]{0,15}\b(anteriores|precedenti|previas)|\bignor[ea]\b[^.]{0,25}\b(as |todas as )?(instruções|instrucoes|regras)\b[^.]{0,15}\banteriores|игнорир\pL*[^.]{0,25}(предыдущ|прежн|все)\pL*[^.]{0,15}(инструкци|указани|правил)|забудь[^.]{0,25}(инструкци|указани|правил)|(忽略|无视|忽视|無視)[^。.]{0,12}(指令|指示|说明|說明|规则|規則)|(以前|前|上記|これまで)の(指示|命令)を?無視|이전[^.]{0,10}(지시|명령)[^.]{0,6}무시`), "tells the model to ignore its instructions"},
		{regexp.MustCompile(`(?i)\bne (le |la |les )?(dis|dites|mentionne[zr]?|révèle[zr]?) (pas|rien)\b[^.]{0,30}\butilisateur|\b(sag|sage|erzähle?|verrate)\b[^.]{0,10}\b(dem|der) (benutzer|nutzer|anwender)\w*\b[^.]{0,10}\bnicht|\bno (le )?(digas|menciones|cuentes|reveles)\b[^.]{0,20}\busuario|\bnon (dire|dirlo|menzionare|rivelare)\b[^.]{0,20}\butente|\bnão (diga|conte|mencione|revele)\b[^.]{0,20}\busuário|не (говори|сообщай|рассказывай)\pL*[^.]{0,20}пользовател|(不要|别|不要向)[^。.]{0,6}(告诉|告知|通知)[^。.]{0,3}用户|ユーザー(に|には)[^。.]{0,10}(言わ|伝え|知らせ)ないで`), "asks to hide something from the user"},
	}
})

// Poisoned returns what text does to the model when it carries an
// instruction of the kinds tool poisoning uses, else "".
func Poisoned(text string) (what, excerpt string) {
	n := normalize(text)
	if len(n.hidden) > 0 {
		return "hides text with invisible characters (" + describeRunes(n.hidden) + ")", text
	}
	for _, p := range english() {
		if loc := p.re.FindStringIndex(n.latin); loc != nil {
			return p.what, n.latin[loc[0]:loc[1]]
		}
	}
	for _, p := range foreign() {
		if loc := p.re.FindStringIndex(n.native); loc != nil {
			return p.what, n.native[loc[0]:loc[1]]
		}
	}
	return "", ""
}

func describeRunes(rs []rune) string {
	seen := map[rune]bool{}
	var out []string
	for _, r := range rs {
		if !seen[r] {
			seen[r] = true
			out = append(out, fmt.Sprintf("U+%04X", r))
		}
	}
	sort.Strings(out)
	if len(out) > 3 {
		out = append(out[:3], "…")
	}
	return strings.Join(out, ", ")
}

func (l *linter) poisoning(ti *toolInfo) {
	t := ti.t
	check := func(where, text string, fromOverlay bool) bool {
		what, ex := Poisoned(text)
		if what == "" {
			return false
		}
		pos := l.specPos(t)
		if fromOverlay {
			pos = l.toolPos(t)
		}
		l.add(Finding{Rule: "tool-poisoning", Tool: t.Name, Pos: pos, Message: fmt.Sprintf("tool `%s`: %s %s: %q", t.Name, where, what, clip(ex, 80))})
		return true
	}
	e := l.entries[t.Name]
	check("the description", t.Description, e != nil && e.Description != nil)
	check("the title", t.Title, e != nil && e.Title != nil)
	for _, schema := range []json.RawMessage{t.InputSchema, t.OutputSchema} {
		if len(schema) == 0 {
			continue
		}
		var root any
		if json.Unmarshal(schema, &root) != nil {
			continue
		}
		found := false
		walkStrings(root, "", func(path, s string) {
			if !found {
				found = check("the schema text at "+path, s, false)
			}
		})
	}
}

// apiPoisoning checks what the model reads of the server itself: its
// title (the spec's info.title, or the overlay's) and its instructions.
func (l *linter) apiPoisoning(ov *overlay.Overlay) {
	for _, f := range []struct {
		where, text string
		inOverlay   bool
	}{
		{"the server's title", l.api.Title, ov != nil && ov.Server.Title != ""},
		{"the server's instructions", l.api.Instructions, ov != nil && ov.Server.Instructions != ""},
	} {
		what, ex := Poisoned(f.text)
		if what == "" {
			continue
		}
		pos := diag.Pos{File: l.api.Source.SpecPath}
		if f.inOverlay {
			pos = diag.Pos{File: ov.Path}
		}
		l.add(Finding{Rule: "tool-poisoning", Pos: pos, Message: fmt.Sprintf("%s %s: %q", f.where, what, clip(ex, 80))})
	}
}

// walkStrings calls f for every string of a schema the model reads:
// descriptions, titles, defaults, examples, enum and const values, and
// property names (with _ and - read as spaces).
func walkStrings(s any, path string, f func(path, s string)) {
	switch v := s.(type) {
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			x := v[k]
			switch k {
			case "description", "title", "default", "examples", "example", "enum", "const":
				if str, ok := x.(string); ok {
					f(path+"/"+k, str)
					continue
				}
			case "properties":
				if props, ok := x.(map[string]any); ok {
					names := make([]string, 0, len(props))
					for name := range props {
						names = append(names, name)
					}
					sort.Strings(names)
					for _, name := range names {
						f(path+"/properties/"+name, strings.NewReplacer("_", " ", "-", " ").Replace(name))
					}
				}
			}
			walkStrings(x, path+"/"+k, f)
		}
	case []any:
		for i, x := range v {
			if str, ok := x.(string); ok {
				f(fmt.Sprintf("%s/%d", path, i), str)
				continue
			}
			walkStrings(x, fmt.Sprintf("%s/%d", path, i), f)
		}
	}
}
