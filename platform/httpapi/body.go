package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
)

// MaxBodyBytes is the largest request body accepted (413 beyond).
const MaxBodyBytes = 1 << 20

// ReadBody reads the request body, at most MaxBodyBytes (413 beyond). Every
// body is JSON: invalid UTF-8 or an escaped control character other than
// \t, \n, \r in a string is 400 MsgInvalidJSONChar.
func ReadBody(r *http.Request) ([]byte, error) {
	if r.Body == nil {
		return nil, nil
	}
	b, err := io.ReadAll(io.LimitReader(r.Body, MaxBodyBytes+1))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return nil, &Error{Status: http.StatusRequestEntityTooLarge, Message: MsgTooLarge}
		}
		return nil, BadRequest("Could not read request body")
	}
	if len(b) > MaxBodyBytes {
		return nil, &Error{Status: http.StatusRequestEntityTooLarge, Message: MsgTooLarge}
	}
	if err := CheckJSONText(b); err != nil {
		return nil, err
	}
	return b, nil
}

// CheckJSONText answers 400 MsgInvalidJSONChar for a body with invalid
// UTF-8 or an escaped control character (other than \t, \n, \r) in a
// string; for handlers that read bodies without ReadBody.
func CheckJSONText(b []byte) error {
	if !jsonTextOK(b) {
		return BadRequest(MsgInvalidJSONChar)
	}
	return nil
}

// DecodeJSON reads the body as JSON into dst whatever the Content-Type (so
// `curl -d` works). An empty body decodes as {} so that handlers report the
// missing fields by name. Unknown fields are ignored.
func DecodeJSON(r *http.Request, dst any) error {
	b, err := ReadBody(r)
	if err != nil {
		return err
	}
	return Unmarshal(b, dst)
}

// Unmarshal decodes b into dst with DecodeJSON's rules.
func Unmarshal(b []byte, dst any) error {
	if len(bytes.TrimSpace(b)) == 0 {
		return nil
	}
	if err := json.Unmarshal(b, dst); err != nil {
		return BadRequest(jsonProblem(err))
	}
	return nil
}

// jsonProblem describes a JSON decoding error for a client.
func jsonProblem(err error) string {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return fmt.Sprintf("Malformed JSON body: %s at byte %d", se.Error(), se.Offset)
	case errors.As(err, &te):
		if te.Field != "" {
			return fmt.Sprintf("Invalid JSON body: '%s' must be %s, not %s", te.Field, jsonType(te.Type.Kind().String()), te.Value)
		}
		return fmt.Sprintf("Invalid JSON body: expected %s, got %s", jsonType(te.Type.Kind().String()), te.Value)
	default:
		return "Malformed JSON body: " + err.Error()
	}
}

func jsonType(kind string) string {
	switch kind {
	case "string":
		return "a string"
	case "bool":
		return "a boolean"
	case "slice", "array":
		return "an array"
	case "map", "struct":
		return "an object"
	case "int", "int64", "int32", "uint", "uint64", "float64":
		return "a number"
	}
	return kind
}
