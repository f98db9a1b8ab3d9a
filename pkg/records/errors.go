package records

import (
	"errors"
	"fmt"
)

// The rules of the write pipeline; every refused write wraps one of these.
var (
	ErrInvalid      = errors.New("invalid")
	ErrExists       = errors.New("exists")
	ErrNotFound     = errors.New("not found")
	ErrConflict     = errors.New("occ conflict")
	ErrResurrection = errors.New("anti resurrection")
	ErrImmutable    = errors.New("immutable")
	ErrCap          = errors.New("cap")
	ErrDisabled     = errors.New("disabled")
)

// codes are the rules' names (and in --json output).
var codes = map[error]string{
	ErrInvalid: "INVALID", ErrExists: "EXISTS", ErrNotFound: "NOT_FOUND",
	ErrConflict: "OCC_CONFLICT", ErrResurrection: "ANTI_RESURRECTION", ErrImmutable: "IMMUTABLE",
	ErrCap: "CATEGORY_CAP", ErrDisabled: "CATEGORY_DISABLED",
}

// Code is the name of the rule that refused a write ("OCC_CONFLICT" …), or
// "" for another error.
func Code(err error) string {
	for sentinel, code := range codes {
		if errors.Is(err, sentinel) {
			return code
		}
	}
	return ""
}

// refusal is a refused write: its message, and the rule that refused it.
type refusal struct {
	rule error
	msg  string
}

func (r *refusal) Error() string { return r.msg }

// Code is the name of the rule that refused the write.
func (r *refusal) Code() string { return codes[r.rule] }

func (r *refusal) Unwrap() error { return r.rule }

func refuse(rule error, format string, args ...any) error {
	return &refusal{rule: rule, msg: fmt.Sprintf(format, args...)}
}
