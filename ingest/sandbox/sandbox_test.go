package sandbox

import (
	"crypto/hmac"
	"crypto/md5"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"github.com/contrack/contrack/reference"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/contrack/contrack/ingest/sandbox/journey"
	"github.com/contrack/contrack/schemas/carriers"
	"github.com/contrack/contrack/schemas/cosco"
)

var wallNow = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)

func fixedClock() time.Time { return wallNow }

func do(t *testing.T, h http.Handler, method, target string, header map[string]string, body string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(method, target, strings.NewReader(body))
	for k, v := range header {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// keysOf collects the JSON keys used at each path of a decoded document
// (array elements share their parent's path), so shapes can be compared.
func keysOf(v any, path string, out map[string]bool) {
	switch x := v.(type) {
	case map[string]any:
		for k, val := range x {
			out[path+"."+k] = true
			keysOf(val, path+"."+k, out)
		}
	case []any:
		for _, e := range x {
			keysOf(e, path, out)
		}
	}
}

// TestTNT22ShapeMatchesSample checks that every key the sandbox emits, per
// event type, also appears in the real TNT 2.2 sample response.
func TestTNT22ShapeMatchesSample(t *testing.T) {
	raw, err := os.ReadFile(reference.Path("dcsa", "samples", "tnt-220-response.json"))
	if err != nil {
		t.Fatal(err)
	}
	var sample []map[string]any
	if err := json.Unmarshal(raw, &sample); err != nil {
		t.Fatal(err)
	}
	allowed := map[string]map[string]bool{}
	for _, e := range sample {
		typ := e["eventType"].(string)
		if allowed[typ] == nil {
			allowed[typ] = map[string]bool{}
		}
		keysOf(e, "", allowed[typ])
	}

	h := NewHandler(Config{Clock: fixedClock, PageSize: 1000, StrictShapes: true})
	seenTypes := map[string]bool{}
	for _, q := range []string{"equipmentReference=MSKU9070323", "carrierBookingReference=BK4471902", "transportDocumentReference=MAEU123456789", "carrierBookingReference=BK0000017"} {
		rec := do(t, h, "GET", "/maeu/track-and-trace-private/events?"+q, map[string]string{"Consumer-Key": "k"}, "")
		if rec.Code != 200 || rec.Header().Get("API-Version") != "2.2.0" {
			t.Fatalf("%s: %d %v", q, rec.Code, rec.Header())
		}
		var events []map[string]any
		if err := json.Unmarshal(rec.Body.Bytes(), &events); err != nil {
			t.Fatal(err)
		}
		for _, e := range events {
			typ := e["eventType"].(string)
			seenTypes[typ] = true
			got := map[string]bool{}
			keysOf(e, "", got)
			for k := range got {
				if !allowed[typ][k] {
					t.Errorf("%s event has key %s, absent from the sample", typ, k)
				}
			}
			for _, k := range []string{".eventID", ".eventCreatedDateTime", ".eventType", ".eventClassifierCode", ".eventDateTime"} {
				if !got[k] {
					t.Errorf("%s event lacks %s", typ, k)
				}
			}
			for _, k := range []string{"eventCreatedDateTime", "eventDateTime"} {
				if _, err := time.Parse(time.RFC3339, e[k].(string)); err != nil {
					t.Errorf("%s: %v", k, err)
				}
			}
		}
	}
	for _, typ := range []string{"TRANSPORT", "EQUIPMENT", "SHIPMENT"} {
		if !seenTypes[typ] {
			t.Errorf("no %s events rendered", typ)
		}
	}
}

func TestTNT22Pagination(t *testing.T) {
	h := NewHandler(Config{Clock: fixedClock, PageSize: 3})
	hdr := map[string]string{"Consumer-Key": "k"}
	target := "/maeu/track-and-trace-private/events?carrierBookingReference=BK4471902&limit=50"
	var ids []string
	for pages := 0; target != ""; pages++ {
		if pages > 50 {
			t.Fatal("pagination does not end")
		}
		rec := do(t, h, "GET", target, hdr, "")
		if rec.Code != 200 || rec.Header().Get("Current-Page") == "" {
			t.Fatalf("page %d: %d %v", pages, rec.Code, rec.Header())
		}
		var page []struct{ EventID string }
		_ = json.Unmarshal(rec.Body.Bytes(), &page)
		if len(page) > 3 {
			t.Fatalf("page of %d events, page size 3", len(page))
		}
		for _, e := range page {
			ids = append(ids, e.EventID)
		}
		target = ""
		if next := rec.Header().Get("Next-Page"); next != "" {
			target = "/maeu/track-and-trace-private/events?cursor=" + url.QueryEscape(next)
		}
	}
	all := renderTNT22(journey.Generate("MAEU", journey.KindBooking, "BK4471902", wallNow))
	if len(ids) != len(all) {
		t.Fatalf("paged %d events, journey has %d", len(ids), len(all))
	}
	for i := range all {
		if ids[i] != all[i].EventID {
			t.Fatalf("event %d differs", i)
		}
	}
	if rec := do(t, h, "GET", "/maeu/track-and-trace-private/events?cursor=garbage!", hdr, ""); rec.Code != 400 {
		t.Fatalf("bad cursor: %d", rec.Code)
	}
}

func TestDCSAErrorBodies(t *testing.T) {
	h := NewHandler(Config{Clock: fixedClock})
	for _, tc := range []struct {
		target string
		header map[string]string
		status int
		code   any
	}{
		{"/maeu/track-and-trace-private/events?equipmentReference=MSKU9070323", nil, 401, float64(401)},
		{"/cmdu/operation/trackandtrace/v1/events", map[string]string{"KeyId": "k"}, 400, float64(400)},
		{"/hlcu/hlag/external/v2/events?equipmentReference=DWNU0000000", map[string]string{"X-IBM-Client-Id": "a", "X-IBM-Client-Secret": "b"}, 503, float64(503)},
		{"/mscu/track-and-trace/v2/events?equipmentReference=MSKU9070323", map[string]string{"Authorization": "Bearer forged"}, 401, float64(401)},
		{"/oney/tnt/v1/events?equipmentReference=MSKU9070323", nil, 401, "401"},
	} {
		rec := do(t, h, "GET", tc.target, tc.header, "")
		if rec.Code != tc.status {
			t.Fatalf("%s: status %d, want %d", tc.target, rec.Code, tc.status)
		}
		var body map[string]any
		if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
			t.Fatal(err)
		}
		for _, k := range []string{"httpMethod", "requestUri", "errors", "statusCode", "statusCodeText", "errorDateTime"} {
			if _, ok := body[k]; !ok {
				t.Errorf("%s: error body lacks %s", tc.target, k)
			}
		}
		if body["statusCode"] != tc.code {
			t.Errorf("%s: statusCode %#v, want %#v", tc.target, body["statusCode"], tc.code)
		}
		if errs, _ := body["errors"].([]any); len(errs) == 0 {
			t.Errorf("%s: no sub-errors", tc.target)
		}
	}
	if rec := do(t, h, "GET", "/hlcu/hlag/external/v2/events?equipmentReference=DWNU0000000", map[string]string{"X-IBM-Client-Id": "a", "X-IBM-Client-Secret": "b"}, ""); rec.Header().Get("Retry-After") == "" {
		t.Error("503 without Retry-After")
	}
}

func TestNotFoundStyles(t *testing.T) {
	h := NewHandler(Config{Clock: fixedClock})
	rec := do(t, h, "GET", "/maeu/track-and-trace-private/events?equipmentReference=NOFU0000001", map[string]string{"Consumer-Key": "k"}, "")
	if rec.Code != 404 {
		t.Errorf("MAEU not found: %d", rec.Code)
	}
	rec = do(t, h, "GET", "/hdmu/tnt/v2/events?equipmentReference=NOFU0000001", map[string]string{"x-api-key": "k"}, "")
	if rec.Code != 200 || strings.TrimSpace(rec.Body.String()) != "[]" {
		t.Errorf("HDMU not found: %d %s", rec.Code, rec.Body)
	}
}

func TestOAuth2TokenEndpoint(t *testing.T) {
	clock := wallNow
	h := NewHandler(Config{Clock: func() time.Time { return clock }, TokenTTL: time.Hour})
	form := "application/x-www-form-urlencoded"
	// Basic client authentication.
	req := httptest.NewRequest("POST", "/mscu/oauth2/token", strings.NewReader("grant_type=client_credentials"))
	req.Header.Set("Content-Type", form)
	req.SetBasicAuth("my-client", "my-secret")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	var tok struct {
		AccessToken string `json:"access_token"`
		TokenType   string `json:"token_type"`
		ExpiresIn   int    `json:"expires_in"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &tok); err != nil || rec.Code != 200 || tok.TokenType != "Bearer" || tok.ExpiresIn != 3600 || tok.AccessToken == "" {
		t.Fatalf("token: %d %s", rec.Code, rec.Body)
	}
	bearer := map[string]string{"Authorization": "Bearer " + tok.AccessToken}
	if rec := do(t, h, "GET", "/mscu/track-and-trace/v2/events?equipmentReference=MSKU9070323", bearer, ""); rec.Code != 200 {
		t.Fatalf("events with token: %d", rec.Code)
	}
	// Tokens are per carrier.
	if rec := do(t, h, "GET", "/eglv/api/tnt/v2/events?equipmentReference=MSKU9070323", bearer, ""); rec.Code != 401 {
		t.Fatalf("MSCU token accepted by EGLV: %d", rec.Code)
	}
	clock = clock.Add(time.Hour)
	if rec := do(t, h, "GET", "/mscu/track-and-trace/v2/events?equipmentReference=MSKU9070323", bearer, ""); rec.Code != 401 || !strings.Contains(rec.Header().Get("WWW-Authenticate"), "invalid_token") {
		t.Fatalf("expired token: %d", rec.Code)
	}
	// Form client authentication, RFC 6749 errors.
	for _, tc := range []struct {
		body   string
		status int
		errc   string
	}{
		{"grant_type=client_credentials&client_id=a&client_secret=b", 200, ""},
		{"grant_type=client_credentials&client_id=a&client_secret=invalid", 401, "invalid_client"},
		{"grant_type=client_credentials", 401, "invalid_client"},
		{"grant_type=password&client_id=a&client_secret=b", 400, "unsupported_grant_type"},
	} {
		rec := do(t, h, "POST", "/oney/oauth/token", map[string]string{"Content-Type": form}, tc.body)
		var e struct{ Error string }
		_ = json.Unmarshal(rec.Body.Bytes(), &e)
		if rec.Code != tc.status || e.Error != tc.errc {
			t.Errorf("%s: %d %q, want %d %q", tc.body, rec.Code, e.Error, tc.status, tc.errc)
		}
	}
}

func TestEvergreenTokenEndpoint(t *testing.T) {
	h := NewHandler(Config{Clock: fixedClock})
	rec := do(t, h, "POST", "/eglv/api/v1/auth/token", nil, `{"clientId":"a","clientSecret":"b"}`)
	var tok struct {
		Token     string
		ExpiresIn int
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &tok); err != nil || rec.Code != 200 || tok.Token == "" || tok.ExpiresIn <= 0 {
		t.Fatalf("%d %s", rec.Code, rec.Body)
	}
	if rec := do(t, h, "POST", "/eglv/api/v1/auth/token", nil, `{"clientId":"a","clientSecret":"invalid"}`); rec.Code != 401 {
		t.Fatalf("invalid secret: %d", rec.Code)
	}
	if rec := do(t, h, "POST", "/eglv/api/v1/auth/token", nil, `{`); rec.Code != 400 {
		t.Fatalf("malformed body: %d", rec.Code)
	}
}

// signCOSCO signs a request the documented way, independently of the adapter.
func signCOSCO(req *http.Request, id, secret string, date time.Time) {
	d := date.UTC().Format(http.TimeFormat)
	sum := md5.Sum(nil)
	md := base64.StdEncoding.EncodeToString(sum[:])
	req.Header.Set("X-Coscon-Date", d)
	req.Header.Set("X-Coscon-Content-Md5", md)
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte("x-coscon-date: " + d + "\nx-coscon-content-md5: " + md + "\nGET " + req.URL.RequestURI() + " HTTP/1.1"))
	req.Header.Set("Authorization", `hmac username="`+id+`", algorithm="hmac-sha256", headers="x-coscon-date x-coscon-content-md5 request-line", signature="`+base64.StdEncoding.EncodeToString(m.Sum(nil))+`"`)
}

func TestCOSCO(t *testing.T) {
	// The documented shape (a share of shipments is answered in the
	// published one otherwise: TestCOSCOPublished).
	h := NewHandler(Config{Clock: fixedClock, CoscoClients: map[string]string{"known": "s3cret"}, StrictShapes: true})
	call := func(query, id, secret string, date time.Time, mutate func(*http.Request)) *httptest.ResponseRecorder {
		req := httptest.NewRequest("GET", "/cosu/tracking/v1/cargoTracking?"+query, nil)
		signCOSCO(req, id, secret, date)
		if mutate != nil {
			mutate(req)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec
	}
	rec := call("trackingType=BOOKING&trackingNo=6301234567", "known", "s3cret", wallNow, nil)
	var resp cosco.Response
	if err := json.Unmarshal(rec.Body.Bytes(), &resp); err != nil || rec.Code != 200 || resp.Code != cosco.CodeOK || resp.Data == nil {
		t.Fatalf("%d %s", rec.Code, rec.Body)
	}
	c := resp.Data.Content
	if c.TrackingType != cosco.TrackingBooking || c.BookingNo != "6301234567" || c.Pol == nil || len(c.Containers) == 0 {
		t.Fatalf("content %+v", c)
	}
	ids := map[string]bool{}
	for _, ct := range c.Containers {
		if !journey.ValidContainer(ct.ContainerNo) || ct.ContainerType == "" {
			t.Errorf("container %+v", ct)
		}
		for _, e := range ct.Events {
			if _, ok := cosco.EventNames[e.EventCode]; !ok {
				t.Errorf("unknown event code %q", e.EventCode)
			}
			if _, err := e.Time(); err != nil {
				t.Error(err)
			}
			if e.IsActual != (e.EventStatus == cosco.StatusActual) || ids[e.EventID] {
				t.Errorf("event %+v", e)
			}
			ids[e.EventID] = true
		}
	}

	for name, tc := range map[string]struct {
		rec    *httptest.ResponseRecorder
		status int
	}{
		"wrong secret of a known client": {call("trackingType=BL&trackingNo=X1", "known", "guess", wallNow, nil), 401},
		"unknown client, any secret":     {call("trackingType=BL&trackingNo=X1", "anyone", "whatever", wallNow, nil), 200},
		"invalid client":                 {call("trackingType=BL&trackingNo=X1", "invalid", "x", wallNow, nil), 401},
		"stale date":                     {call("trackingType=BL&trackingNo=X1", "anyone", "x", wallNow.Add(-time.Hour), nil), 401},
		"tampered query":                 {call("trackingType=BL&trackingNo=X1", "known", "s3cret", wallNow, func(r *http.Request) { r.URL.RawQuery += "2" }), 401},
		"wrong body md5":                 {call("trackingType=BL&trackingNo=X1", "anyone", "x", wallNow, func(r *http.Request) { r.Header.Set("X-Coscon-Content-Md5", "AAAA") }), 401},
		"unsigned":                       {call("trackingType=BL&trackingNo=X1", "anyone", "x", wallNow, func(r *http.Request) { r.Header.Del("Authorization") }), 401},
		"bad tracking type":              {call("trackingType=VESSEL&trackingNo=X1", "anyone", "x", wallNow, nil), 400},
		"not found":                      {call("trackingType=CONTAINER&trackingNo=NOFU0000001", "anyone", "x", wallNow, nil), 404},
	} {
		if tc.rec.Code != tc.status {
			t.Errorf("%s: %d, want %d (%s)", name, tc.rec.Code, tc.status, tc.rec.Body)
		}
		var r cosco.Response
		if err := json.Unmarshal(tc.rec.Body.Bytes(), &r); err != nil || r.Code != itoa(tc.status) {
			t.Errorf("%s: body %s", name, tc.rec.Body)
		}
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

func TestIFTSTA(t *testing.T) {
	h := NewHandler(Config{Clock: fixedClock})
	rec := do(t, h, "GET", "/oolu/edi/mailbox/iftsta?bookingNo=BK4471902", map[string]string{"apiKey": "k"}, "")
	if rec.Code != 200 || rec.Header().Get("Content-Type") != "application/edifact" {
		t.Fatalf("%d %v", rec.Code, rec.Header())
	}
	body := rec.Body.String()
	if !strings.HasPrefix(body, "UNA:+.? '\nUNB+UNOC:3+OOLU:ZZZ+CONTRACK:ZZZ+") {
		t.Fatalf("header: %.80q", body)
	}
	// Segment counts in UNT and the message count in UNZ must be right.
	segs := strings.Split(strings.TrimSpace(body[len("UNA:+.? '"):]), "'\n")
	messages, inMessage := 0, 0
	stsRe := regexp.MustCompile(`^STS\+1\+(EE|I|AE|VD|VA|UV|AL|UR|OA|RD):::`)
	for _, s := range segs {
		s = strings.TrimSuffix(s, "'")
		tag := s[:3]
		switch {
		case tag == "UNH":
			inMessage = 1
			messages++
			if !strings.Contains(s, "IFTSTA:D:99B:UN") {
				t.Errorf("UNH %s", s)
			}
		case tag == "UNT":
			inMessage++
			if want := "UNT+" + itoa(inMessage) + "+"; !strings.HasPrefix(s, want) {
				t.Errorf("%s, want %s…", s, want)
			}
			inMessage = 0
		case tag == "UNZ":
			if !strings.HasPrefix(s, "UNZ+"+itoa(messages)+"+") {
				t.Errorf("%s with %d messages", s, messages)
			}
		case inMessage > 0:
			inMessage++
			if tag == "STS" && !stsRe.MatchString(s) {
				t.Errorf("STS segment %s", s)
			}
		}
	}
	if messages == 0 {
		t.Fatal("no messages")
	}
	if rec := do(t, h, "GET", "/oolu/edi/mailbox/iftsta?containerNo=NOFU0000001", map[string]string{"apiKey": "k"}, ""); rec.Code != 404 {
		t.Fatalf("not found: %d", rec.Code)
	}
	if rec := do(t, h, "GET", "/oolu/edi/mailbox/iftsta?containerNo=MSKU9070323", nil, ""); rec.Code != 401 {
		t.Fatalf("no key: %d", rec.Code)
	}
	if got := edi("A+B:C'D?E"); got != "A?+B?:C?'D??E" {
		t.Fatalf("edi escape: %s", got)
	}
}

func TestTNT12(t *testing.T) {
	h := NewHandler(Config{Clock: fixedClock})
	rec := do(t, h, "POST", "/oney/oauth/token", map[string]string{"Content-Type": "application/x-www-form-urlencoded"}, "grant_type=client_credentials&client_id=a&client_secret=b")
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	_ = json.Unmarshal(rec.Body.Bytes(), &tok)
	rec = do(t, h, "GET", "/oney/tnt/v1/events?billOfLadingNumber=ONEYSH1234567", map[string]string{"Authorization": "Bearer " + tok.AccessToken}, "")
	var body struct {
		Events []map[string]any `json:"events"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil || rec.Code != 200 || len(body.Events) == 0 {
		t.Fatalf("%d %s", rec.Code, rec.Body)
	}
	for _, e := range body.Events {
		for _, k := range []string{"eventID", "eventType", "eventDateTime", "eventClassifierCode", "eventTypeCode", "UNLocationCode", "facilityCode", "facilityTypeCode"} {
			if e[k] == nil || e[k] == "" {
				t.Errorf("event lacks %s: %v", k, e)
			}
		}
		switch e["eventType"] {
		case "TRANSPORT", "EQUIPMENT", "TRANSPORTEQUIPMENT":
		default:
			t.Errorf("eventType %v", e["eventType"])
		}
	}
}

func TestSlowAnswer(t *testing.T) {
	h := NewHandler(Config{Clock: fixedClock, SlowDelay: 50 * time.Millisecond})
	start := time.Now()
	rec := do(t, h, "GET", "/hdmu/tnt/v2/events?equipmentReference=SLOU0000007", map[string]string{"x-api-key": "k"}, "")
	if d := time.Since(start); rec.Code != 200 || d < 50*time.Millisecond {
		t.Fatalf("%d after %s", rec.Code, d)
	}
}

func TestAccelerate(t *testing.T) {
	wall := wallNow
	count := func(h http.Handler) int {
		rec := do(t, h, "GET", "/maeu/track-and-trace-private/events?carrierBookingReference=BK4471902", map[string]string{"Consumer-Key": "k"}, "")
		b, _ := io.ReadAll(rec.Body)
		return strings.Count(string(b), `"eventClassifierCode": "ACT"`)
	}
	epoch := wallNow.Add(-time.Hour)
	h := NewHandler(Config{Clock: func() time.Time { return wall }, Epoch: epoch, Accelerate: 24 * 7, PageSize: 1000})
	before := count(h)
	wall = wall.Add(2 * time.Hour) // two weeks of journey time
	if after := count(h); after <= before {
		t.Fatalf("ACT events %d then %d: accelerated time did not advance the journey", before, after)
	}
}

func TestSpecialOf(t *testing.T) {
	for v, want := range map[string]Special{
		"UNAU0000004": SpecialUnauthorized, "nofu0000001": SpecialNotFound, " PAGU12345": SpecialManyPages,
		"MSKU9070323": SpecialNone, "DW": SpecialNone, "SLOU0000007": SpecialSlow,
	} {
		if got := SpecialOf(v); got != want {
			t.Errorf("SpecialOf(%q) = %q, want %q", v, got, want)
		}
	}
}

func TestConfigValidate(t *testing.T) {
	if err := (Config{}).Validate(); err != nil {
		t.Fatal(err)
	}
	err := Config{Accelerate: -1, PageSize: -1, SlowDelay: -1, TokenTTL: -1}.Validate()
	if err == nil || strings.Count(err.Error(), "\n") != 3 {
		t.Fatalf("want four problems, got %v", err)
	}
}

// TestLeasedToTable checks docs/sandbox.md's table of leased containers
// against LeasedTo, and that the table covers every registered carrier.
func TestLeasedToTable(t *testing.T) {
	raw, err := os.ReadFile("../../docs/sandbox.md")
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile("(?m)^\\| (\\d) \\| ([A-Z]{4}) \\| `([A-Z]{4}\\d{7})` \\|$")
	rows := row.FindAllStringSubmatch(string(raw), -1)
	if len(rows) != len(carriers.All()) {
		t.Fatalf("the table has %d rows, the registry %d carriers", len(rows), len(carriers.All()))
	}
	for _, r := range rows {
		if !journey.ValidContainer(r[3]) {
			t.Errorf("%s: invalid check digit", r[3])
		}
		if got, ok := LeasedTo(r[3]); !ok || got != r[2] {
			t.Errorf("LeasedTo(%s) = %q %v, the table says %s", r[3], got, ok, r[2])
		}
		if got, ok := LeasedTo(strings.ToLower(r[3])); !ok || got != r[2] {
			t.Errorf("LeasedTo is case-sensitive for %s", r[3])
		}
	}
	for _, v := range []string{"MSKU9070323", "CSQU3054383", "TGHU00000", "NOFU0000001"} {
		if scac, ok := LeasedTo(v); ok {
			t.Errorf("LeasedTo(%s) = %s, want not leased", v, scac)
		}
	}
}
