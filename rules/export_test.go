package rules

// Direction is exported to the external tests only.
var Direction = direction
