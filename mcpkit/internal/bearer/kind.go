package bearer

// jsonKind names a decoded JSON value's type for a message.
func jsonKind(v any) string {
	switch v.(type) {
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	case bool:
		return "a boolean"
	case string:
		return "a string"
	case nil:
		return "null"
	}
	return "a number"
}
