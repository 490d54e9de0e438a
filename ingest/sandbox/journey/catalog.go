package journey

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math"
)

// fleets lists realistic vessel names per carrier; IMO numbers and call
// signs are derived from the name (valid check digit, otherwise illustrative).
var fleets = map[string]struct {
	names []string
	flags []string
}{
	"MAEU": {[]string{"MAERSK ESSEN", "MAERSK KENTUCKY", "MAERSK HANGZHOU", "MARIE MAERSK", "MADISON MAERSK", "MAERSK EMDEN"}, []string{"DK", "SG"}},
	"HLCU": {[]string{"BERLIN EXPRESS", "HAMBURG EXPRESS", "AL ZUBARA", "BASLE EXPRESS", "ESSEN EXPRESS", "SAJIR"}, []string{"DE", "MT"}},
	"CMDU": {[]string{"CMA CGM JACQUES SAADE", "CMA CGM MARCO POLO", "CMA CGM BENJAMIN FRANKLIN", "CMA CGM TROCADERO", "CMA CGM CHAMPS ELYSEES"}, []string{"FR", "MT"}},
	"EGLV": {[]string{"EVER ACE", "EVER ALOT", "EVER GOLDEN", "EVER LIBERAL", "EVER GENTLE", "EVER LUCID"}, []string{"PA", "GB", "SG"}},
	"MSCU": {[]string{"MSC GULSUN", "MSC OSCAR", "MSC IRINA", "MSC LORETO", "MSC ISABELLA", "MSC TESSA"}, []string{"PA", "LR"}},
	"HDMU": {[]string{"HMM ALGECIRAS", "HMM OSLO", "HMM COPENHAGEN", "HMM DAON", "HMM PROMISE", "HMM NURI"}, []string{"KR", "PA"}},
	"ONEY": {[]string{"ONE APUS", "ONE STORK", "ONE INNOVATION", "ONE TRUST", "ONE HAMMERSMITH", "ONE COLUMBA"}, []string{"JP", "SG", "PA"}},
	"OOLU": {[]string{"OOCL HONG KONG", "OOCL GERMANY", "OOCL SPAIN", "OOCL JAPAN", "OOCL PIRAEUS", "OOCL INDONESIA"}, []string{"HK"}},
	"COSU": {[]string{"COSCO SHIPPING ARIES", "COSCO SHIPPING UNIVERSE", "COSCO SHIPPING GALAXY", "COSCO SHIPPING PLANET", "COSCO SHIPPING TAURUS", "COSCO SHIPPING LIBRA"}, []string{"HK", "CN"}},
	"ZIMU": {[]string{"ZIM SAMMY OFER", "ZIM DIAMOND", "ZIM EMERALD", "ZIM MOUNT EVEREST", "ZIM KINGSTON", "ZIM SHANGHAI"}, []string{"LR", "MT"}},
}

var defaultFleet = struct {
	names []string
	flags []string
}{[]string{"NORTHERN JUBILEE", "SEASPAN AMAZON", "CAPE AKRITAS", "WAN HAI 612"}, []string{"LR", "PA", "MH"}}

// ownerCodes are real ISO 6346 owner prefixes (with category letter) per carrier.
var ownerCodes = map[string][]string{
	"MAEU": {"MSKU", "MRKU", "MRSU"},
	"HLCU": {"HLXU", "HLBU", "HAMU"},
	"CMDU": {"CMAU", "CGMU", "ECMU"},
	"EGLV": {"EGHU", "EMCU", "EISU"},
	"MSCU": {"MSCU", "MEDU", "MSDU"},
	"HDMU": {"HDMU", "KOCU"},
	"ONEY": {"ONEU", "NYKU", "KKFU"},
	"OOLU": {"OOLU", "OOCU"},
	"COSU": {"CSNU", "CBHU", "FCIU"},
	"ZIMU": {"ZIMU", "ZCSU"},
}

// isoTypes are ISO 6346 size-type codes with COSCO-style labels, weighted by share.
var isoTypes = []struct {
	code, label string
	weight      int
}{
	{"45G1", "40HQ", 50},
	{"42G1", "40GP", 20},
	{"22G1", "20GP", 25},
	{"45R1", "40RH", 5},
}

func makeVessel(scac, name string) Vessel {
	f, ok := fleets[scac]
	if !ok {
		f = defaultFleet
	}
	sum := sha256.Sum256([]byte("vessel|" + name))
	n := binary.BigEndian.Uint64(sum[:8])
	six := fmt.Sprintf("9%05d", n%100000)
	d, _ := IMOCheckDigit(six)
	letters := "ABCDEFGHJKLMNPQRSTUVWXYZ"
	cs := []byte{
		letters[sum[8]%byte(len(letters))], letters[sum[9]%byte(len(letters))],
		letters[sum[10]%byte(len(letters))], letters[sum[11]%byte(len(letters))],
		'0' + sum[12]%10,
	}
	return Vessel{
		Name:     name,
		IMO:      fmt.Sprintf("%s%d", six, d),
		Flag:     f.flags[int(sum[13])%len(f.flags)],
		CallSign: string(cs),
		Operator: scac,
	}
}

func fleetNames(scac string) []string {
	if f, ok := fleets[scac]; ok {
		return f.names
	}
	return defaultFleet.names
}

func ownerCodesFor(scac string) []string {
	if c, ok := ownerCodes[scac]; ok {
		return c
	}
	return []string{"TCLU", "TGHU", "CAIU"}
}

// distanceKM is the great-circle distance between two ports.
func distanceKM(a, b Port) float64 {
	const r = 6371.0
	rad := math.Pi / 180
	dLat := (b.Lat - a.Lat) * rad
	dLon := (b.Lon - a.Lon) * rad
	h := math.Sin(dLat/2)*math.Sin(dLat/2) + math.Cos(a.Lat*rad)*math.Cos(b.Lat*rad)*math.Sin(dLon/2)*math.Sin(dLon/2)
	return 2 * r * math.Asin(math.Sqrt(h))
}

// FleetVessel is the i-th vessel of scac's fleet (modulo its size).
func FleetVessel(scac string, i int) Vessel {
	names := fleetNames(scac)
	return makeVessel(scac, names[((i%len(names))+len(names))%len(names)])
}
