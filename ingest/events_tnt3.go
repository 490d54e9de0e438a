package ingest

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/contrack/contrack/platform/auth"
	"github.com/contrack/contrack/platform/httpapi"
	"github.com/contrack/contrack/schemas/tnt3"
)

// MsgNoneProcessedPrefix starts the message of a 3.0 push none of whose
// events could be processed; the first refusal follows.
const MsgNoneProcessedPrefix = "No event processed: "

// isTNT3 says a POST /events body is DCSA Track & Trace 3.0: asked for with
// API-Version 3.x, or shaped like 3.0's {"events": [...]} (an object with an
// events member, which no 2.0.2 event has) whose events are not 2.x events.
// Carriers wrap TNT 2.x events in {"events": [...]} too: those keep the rules
// of the interface's format. Other bodies keep them, unchanged.
func isTNT3(h http.Header, raw []byte) bool {
	if tnt3.IsVersion3(h.Get(tnt3.HeaderAPIVersion)) {
		return true
	}
	body := bytes.TrimLeft(raw, " \t\r\n")
	// Cheap first: only an object naming "events" is decoded.
	if len(body) == 0 || body[0] != '{' || !bytes.Contains(body, []byte(`"events"`)) {
		return false
	}
	var top struct {
		Events json.RawMessage `json:"events"`
	}
	if json.Unmarshal(body, &top) != nil || top.Events == nil {
		return false
	}
	return !twoX(top.Events)
}

// twoX says the first element of an events array is a TNT 2.x (or 2.0.2)
// event: it has 2.x's flat eventClassifierCode or eventCreatedDateTime and
// neither of 3.0's eventClassification and eventUpdatedDateTime (member
// names in any case, as the normaliser reads them).
func twoX(events json.RawMessage) bool {
	var elems []json.RawMessage
	if json.Unmarshal(events, &elems) != nil || len(elems) == 0 {
		return false
	}
	var first map[string]json.RawMessage
	if json.Unmarshal(elems[0], &first) != nil {
		return false
	}
	v2 := false
	for k := range first {
		switch strings.ToLower(k) {
		case "eventclassification", "eventupdateddatetime":
			return false
		case "eventclassifiercode", "eventcreateddatetime":
			v2 = true
		}
	}
	return v2
}

// checkTNT3 judges a 3.0 push as the standard's Event Consumer does:
// every event on its own. It returns the answer to give once the body is
// stored — feedbackElements naming each event not processed as sent, ERROR
// refused, WARN accepted but not forwarded, by its propertyPath — and
// whether there is anything to store (store false: answer it as it is).
// A body none of whose events can be processed is a 400 with them; one
// refused whole (empty, not JSON, no events array) a 400 with its message.
// Every 3.0 answer carries API-Version 3.0.0 and, beside 3.0's
// feedbackElements, contrack's message.
func (h eventsHandler) checkTNT3(k auth.Key, raw []byte, now time.Time) (_ AddedResponse, store bool, err error) {
	if h.deps.CheckTNT3 == nil {
		return AddedResponse{}, false, asTNT3(httpapi.BadRequest("DCSA Track & Trace 3.0 events are not accepted here"))
	}
	v := h.deps.CheckTNT3(raw, strings.ToUpper(k.SCAC), now)
	if v.Message != "" {
		return AddedResponse{}, false, asTNT3(httpapi.BadRequest(v.Message))
	}
	if v.Accepted+v.NotCarried == 0 {
		msg := MsgNoneProcessedPrefix + v.Feedback[0].Message + " (" + v.Feedback[0].PropertyPath + ")"
		if n := len(v.Feedback) - 1; n > 0 {
			msg += " (and " + strconv.Itoa(n) + " more, see feedbackElements)"
		}
		return AddedResponse{}, false, &httpapi.Error{Status: http.StatusBadRequest, Message: msg, Feedback: v.Feedback,
			Header: http.Header{tnt3.HeaderAPIVersion: {tnt3.Version}}}
	}
	return AddedResponse{Message: MsgAdded, FeedbackElements: v.Feedback}, v.Accepted > 0, nil
}

// asTNT3 gives an answer's error 3.0's shape: API-Version 3.0.0 and one
// ERROR feedback element with its message.
func asTNT3(err error) error {
	var e *httpapi.Error
	if errors.As(err, &e) {
		e.Header = http.Header{tnt3.HeaderAPIVersion: {tnt3.Version}}
		if e.Feedback == nil {
			e.Feedback = []tnt3.FeedbackElement{{Severity: tnt3.SeverityError, Message: e.Message}}
		}
	}
	return err
}
