package render

// HoldLiterals switches literals.hold on or off for the equivalence test.
func HoldLiterals(on bool) { holdOff = !on }

// PartBytes sets how much source a part of a file holds (parts.go) and
// returns the previous setting.
func PartBytes(n int) int {
	prev := partBytes
	partBytes = n
	return prev
}
