package render

// HoldLiterals switches literals.hold on or off for the equivalence test.
func HoldLiterals(on bool) { holdOff = !on }
