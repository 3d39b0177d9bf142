package rules

// Direction is exported to the external tests only.
var Direction = direction

// StepOf is turn t as the detectors' Step.
var StepOf = stepOf
