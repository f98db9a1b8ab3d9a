package store

// ReadHeadFrom is readHead for the external tests.
var ReadHeadFrom = readHead
