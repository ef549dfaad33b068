package session

// ExtractionLease is extractionLease, for the tests.
const ExtractionLease = extractionLease
