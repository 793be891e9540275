package schema

import "strings"

// SaidShortMax bounds the short form of an argument's description said
// once for a tool set, in bytes: the leanest level's argument text, so
// that no level cuts it further.
const SaidShortMax = 80

// SaidShort is the short form of a description the tool set says once, in
// the server's instructions, which each listed schema keeps: its first
// sentence after any leading aside in parentheses, within SaidShortMax. Clients that do not pass the server's
// instructions to their model (the OpenAI Agents SDK, the Vercel AI SDK)
// still tell the model what the argument is; the rest of the text is one
// describe_tool away, and in the instructions where the client passes them.
func SaidShort(full string) string {
	s := strings.Join(strings.Fields(PlainText(full)), " ")
	if strings.HasPrefix(s, "(") {
		// A leading aside (tailor's note of a renamed body field)
		// leaves room for what the argument is.
		if end := strings.Index(s, ") "); end > 0 {
			s = s[end+2:]
		}
	}
	for i := 0; i+1 < len(s); i++ {
		if (s[i] == '.' || s[i] == '!' || s[i] == '?') && s[i+1] == ' ' {
			s = s[:i+1]
			break
		}
	}
	return TrimText(s, SaidShortMax)
}

// withKey is m with key set to v (a copy: m may be shared).
func withKey(m map[string]any, key string, v any) map[string]any {
	cp := make(map[string]any, len(m)+1)
	for k, x := range m {
		cp[k] = x
	}
	cp[key] = v
	return cp
}
