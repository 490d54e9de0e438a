package queryapi

import (
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/go-fuego/fuego"
	"github.com/go-fuego/fuego/option"

	"github.com/contrack/contrack/platform/auth"
	"github.com/contrack/contrack/platform/httpapi"
	"github.com/contrack/contrack/queryapi/journeycache"
	"github.com/contrack/contrack/schemas/journeys"
)

// JourneyResult is one equipment's journey in GET /subscription/equipment.
type JourneyResult = journeys.Result

// EnhancedEvent is a milestone contrack derives from the carrier's events
// (types and examples in docs/api.md).
type EnhancedEvent = journeys.Milestone

// JourneysResponse is GET /subscription/equipment's body (its OpenAPI
// schema: the handler writes it from journeycache.Body).
type JourneysResponse struct {
	Results       []JourneyResult `json:"results"`
	Count         int             `json:"count"`
	DateOfRequest httpapi.Time    `json:"dateOfRequest"`
}

func registerJourneys(s *fuego.Server, deps Deps) {
	fuego.GetStd(s, "/subscription/equipment", func(w http.ResponseWriter, r *http.Request) {
		now := deps.Now().UTC()
		k, _ := auth.FromContext(r.Context())
		q := r.URL.Query()
		equipment := strings.ToUpper(strings.ReplaceAll(strings.TrimSpace(q.Get("equipmentNumber")), " ", ""))
		booking := strings.TrimSpace(q.Get("bookingNumber"))
		bill := strings.TrimSpace(q.Get("billNumber"))
		if equipment == "" && booking == "" && bill == "" {
			httpapi.WriteError(w, r, deps.Log, httpapi.BadRequest("Must provide at least one of: equipmentNumber, bookingNumber, billNumber").Dated(now))
			return
		}
		if booking != "" && bill != "" {
			httpapi.WriteError(w, r, deps.Log, httpapi.BadRequest("Cannot provide both bookingNumber and billNumber please provide one").Dated(now))
			return
		}
		key := journeycache.Key{Account: k.Account.ID, Kind: "container", Value: equipment}
		switch {
		case booking != "":
			key.Kind, key.Value = "booking", booking
		case bill != "":
			key.Kind, key.Value = "bill", bill
		}
		inm := r.Header.Get("If-None-Match")
		b, err := deps.Journeys.lookup(r.Context(), key, equipment, inm)
		if err != nil {
			httpapi.WriteError(w, r, deps.Log, err)
			return
		}
		h := w.Header()
		h.Set("ETag", b.ETag) // of the body served, superseded or not
		h.Set("Vary", "Accept-Encoding")
		if httpapi.NoneMatch(inm, b.ETag) {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		date, _ := httpapi.Time(now).MarshalJSON()
		suffix := append(date, "}\n"...)
		out := bufs.Get().(*[]byte)
		defer bufs.Put(out)
		h.Set("Content-Type", "application/json")
		if acceptsGzip(r.Header.Get("Accept-Encoding")) {
			*out = b.AppendGzip((*out)[:0], suffix)
			h.Set("Content-Encoding", "gzip")
		} else {
			// Kept uncompressed when pulled often, else inflated here.
			prefix, kept, err := deps.Journeys.identities.JSON(b, (*out)[:0])
			if err != nil {
				h.Del("ETag")
				httpapi.WriteError(w, r, deps.Log, err)
				return
			}
			if !kept {
				*out = prefix
			}
			h.Set("Content-Length", strconv.Itoa(len(prefix)+len(suffix)))
			w.WriteHeader(http.StatusOK)
			// A client gone mid-answer: no one to tell.
			if _, err := w.Write(prefix); err == nil {
				_, _ = w.Write(suffix)
			}
			return
		}
		h.Set("Content-Length", strconv.Itoa(len(*out)))
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(*out) // a client gone mid-answer: no one to tell
	},
		option.OperationID("getJourneys"),
		option.Query("equipmentNumber", "container number; narrows a booking or bill lookup to that container"),
		option.Query("bookingNumber", "booking reference (not with billNumber)"),
		option.Query("billNumber", "bill of lading number (not with bookingNumber)"),
		option.Header("If-None-Match", "an ETag of an earlier answer: 304 without a body while the results are unchanged"),
		option.Header("Accept-Encoding", "gzip: the answer comes compressed (Content-Encoding: gzip), as the server keeps it"),
		option.Summary("Tracking data of the account's subscriptions"),
		option.Description("One result per container of the matching subscriptions: the carrier's DCSA 2.0.2 equipment events (sourceEvents), its transport events (vesselEvents), POL, POD, last actual location and derived milestones (enhancedEvents: ATD_POL, TRANSSHIPMENT, ETA_REVISION, ETA_POD, ATA_POD, DISCHARGE_POD, GATE_OUT_FULL_DESTINATION, EMPTY_RETURN). Served from the journey read model; an ETag lets a re-poll be answered 304."),
		option.AddResponse(200, "The journeys", fuego.Response{Type: JourneysResponse{}}),
		option.AddResponse(400, "No identifier, or both booking and bill", fuego.Response{Type: httpapi.Body{}}),
		option.AddResponse(304, "Not modified since the If-None-Match tag", fuego.Response{Type: httpapi.Body{}}),
		option.Tags("Subscriptions"),
	)
}

// bufs are response buffers (answers are tens of kB uncompressed).
var bufs = sync.Pool{New: func() any { b := make([]byte, 0, 32<<10); return &b }}

// acceptsGzip says Accept-Encoding allows gzip (not refused with q=0).
func acceptsGzip(header string) bool {
	for _, part := range strings.Split(header, ",") {
		name, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		if !strings.EqualFold(strings.TrimSpace(name), "gzip") {
			continue
		}
		q := strings.ReplaceAll(strings.TrimSpace(params), " ", "")
		return !(q == "q=0" || q == "q=0.0" || q == "q=0.00" || q == "q=0.000")
	}
	return false
}
