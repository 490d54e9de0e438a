package journey

import (
	"sort"
	"time"
	_ "time/tzdata" // port time zones must resolve on hosts without a zoneinfo database
)

// Region groups ports into trade areas for route picking.
type Region string

// Regions.
const (
	Asia     Region = "ASIA"
	Europe   Region = "EUROPE"
	NAmerica Region = "NAMERICA"
	LatAm    Region = "LATAM"
	Oceania  Region = "OCEANIA"
	Africa   Region = "AFRICA"
)

// Port is a real port or inland rail terminal: its UN/LOCODE, name, position,
// IANA time zone and one container terminal. Terminal codes and names are
// illustrative (SMDG-style), not an authoritative terminal list.
type Port struct {
	Code    string // UN/LOCODE, e.g. CNSHA
	Name    string
	Country string // ISO 3166-1 alpha-2
	Lat     float64
	Lon     float64
	Zone    string // IANA time zone, e.g. Asia/Shanghai
	Region  Region
	// TerminalCode and TerminalName name the container terminal (or rail
	// ramp, for inland ports) where the journey's events happen.
	TerminalCode string
	TerminalName string
	// Hub marks a transshipment hub; Inland an inland rail terminal (no vessel calls).
	Hub    bool
	Inland bool

	loc *time.Location
}

// Location returns the port's time zone.
func (p Port) Location() *time.Location {
	if p.loc == nil {
		return time.UTC
	}
	return p.loc
}

// DepotName is the name of the empty container depot used at this port.
func (p Port) DepotName() string { return p.Name + " Empty Depot" }

var ports = []Port{
	// Asia
	{Code: "CNSHA", Name: "Shanghai", Country: "CN", Lat: 31.2304, Lon: 121.4737, Zone: "Asia/Shanghai", Region: Asia, TerminalCode: "YSD", TerminalName: "Yangshan Deep Water Port"},
	{Code: "CNNGB", Name: "Ningbo", Country: "CN", Lat: 29.8683, Lon: 121.5440, Zone: "Asia/Shanghai", Region: Asia, TerminalCode: "BLCT", TerminalName: "Beilun Container Terminal"},
	{Code: "CNYTN", Name: "Yantian", Country: "CN", Lat: 22.5710, Lon: 114.2690, Zone: "Asia/Shanghai", Region: Asia, TerminalCode: "YICT", TerminalName: "Yantian International Container Terminals"},
	{Code: "CNTAO", Name: "Qingdao", Country: "CN", Lat: 36.0671, Lon: 120.3826, Zone: "Asia/Shanghai", Region: Asia, TerminalCode: "QQCT", TerminalName: "Qingdao Qianwan Container Terminal"},
	{Code: "HKHKG", Name: "Hong Kong", Country: "HK", Lat: 22.3193, Lon: 114.1694, Zone: "Asia/Hong_Kong", Region: Asia, TerminalCode: "MTL", TerminalName: "Modern Terminals", Hub: true},
	{Code: "SGSIN", Name: "Singapore", Country: "SG", Lat: 1.2644, Lon: 103.8400, Zone: "Asia/Singapore", Region: Asia, TerminalCode: "PPT", TerminalName: "Pasir Panjang Terminal", Hub: true},
	{Code: "KRPUS", Name: "Busan", Country: "KR", Lat: 35.1028, Lon: 129.0403, Zone: "Asia/Seoul", Region: Asia, TerminalCode: "PNIT", TerminalName: "Pusan Newport International Terminal", Hub: true},
	{Code: "JPTYO", Name: "Tokyo", Country: "JP", Lat: 35.6180, Lon: 139.7800, Zone: "Asia/Tokyo", Region: Asia, TerminalCode: "OHI", TerminalName: "Oi Container Terminal"},
	{Code: "TWKHH", Name: "Kaohsiung", Country: "TW", Lat: 22.6163, Lon: 120.2850, Zone: "Asia/Taipei", Region: Asia, TerminalCode: "T70", TerminalName: "Kaohsiung Terminal 70"},
	{Code: "VNSGN", Name: "Ho Chi Minh City", Country: "VN", Lat: 10.7626, Lon: 106.7600, Zone: "Asia/Ho_Chi_Minh", Region: Asia, TerminalCode: "CLI", TerminalName: "Cat Lai Terminal"},
	{Code: "THLCH", Name: "Laem Chabang", Country: "TH", Lat: 13.0827, Lon: 100.8830, Zone: "Asia/Bangkok", Region: Asia, TerminalCode: "LCB1", TerminalName: "Laem Chabang Terminal B1"},
	{Code: "MYPKG", Name: "Port Klang", Country: "MY", Lat: 3.0000, Lon: 101.3900, Zone: "Asia/Kuala_Lumpur", Region: Asia, TerminalCode: "WPT", TerminalName: "Westports"},
	{Code: "MYTPP", Name: "Tanjung Pelepas", Country: "MY", Lat: 1.3667, Lon: 103.5500, Zone: "Asia/Kuala_Lumpur", Region: Asia, TerminalCode: "PTP", TerminalName: "Port of Tanjung Pelepas", Hub: true},
	{Code: "LKCMB", Name: "Colombo", Country: "LK", Lat: 6.9497, Lon: 79.8428, Zone: "Asia/Colombo", Region: Asia, TerminalCode: "SAGT", TerminalName: "South Asia Gateway Terminals", Hub: true},
	{Code: "INNSA", Name: "Nhava Sheva", Country: "IN", Lat: 18.9490, Lon: 72.9510, Zone: "Asia/Kolkata", Region: Asia, TerminalCode: "JNPT", TerminalName: "Jawaharlal Nehru Port Container Terminal"},
	{Code: "AEJEA", Name: "Jebel Ali", Country: "AE", Lat: 25.0112, Lon: 55.0611, Zone: "Asia/Dubai", Region: Asia, TerminalCode: "JAT1", TerminalName: "Jebel Ali Terminal 1", Hub: true},
	// Europe and the Mediterranean
	{Code: "NLRTM", Name: "Rotterdam", Country: "NL", Lat: 51.9490, Lon: 4.1450, Zone: "Europe/Amsterdam", Region: Europe, TerminalCode: "ECTDE", TerminalName: "ECT Delta Terminal"},
	{Code: "DEHAM", Name: "Hamburg", Country: "DE", Lat: 53.5403, Lon: 9.9300, Zone: "Europe/Berlin", Region: Europe, TerminalCode: "CTA", TerminalName: "Container Terminal Altenwerder"},
	{Code: "BEANR", Name: "Antwerp", Country: "BE", Lat: 51.2800, Lon: 4.3300, Zone: "Europe/Brussels", Region: Europe, TerminalCode: "MPET", TerminalName: "MSC PSA European Terminal"},
	{Code: "GBFXT", Name: "Felixstowe", Country: "GB", Lat: 51.9600, Lon: 1.3300, Zone: "Europe/London", Region: Europe, TerminalCode: "FXT", TerminalName: "Port of Felixstowe"},
	{Code: "FRLEH", Name: "Le Havre", Country: "FR", Lat: 49.4800, Lon: 0.1100, Zone: "Europe/Paris", Region: Europe, TerminalCode: "TDF", TerminalName: "Terminal de France"},
	{Code: "PLGDN", Name: "Gdansk", Country: "PL", Lat: 54.4000, Lon: 18.6700, Zone: "Europe/Warsaw", Region: Europe, TerminalCode: "DCT", TerminalName: "Baltic Hub Container Terminal"},
	{Code: "ESVLC", Name: "Valencia", Country: "ES", Lat: 39.4400, Lon: -0.3200, Zone: "Europe/Madrid", Region: Europe, TerminalCode: "MSCTV", TerminalName: "MSC Terminal Valencia", Hub: true},
	{Code: "ESALG", Name: "Algeciras", Country: "ES", Lat: 36.1300, Lon: -5.4400, Zone: "Europe/Madrid", Region: Europe, TerminalCode: "APMA", TerminalName: "APM Terminals Algeciras", Hub: true},
	{Code: "ITGOA", Name: "Genoa", Country: "IT", Lat: 44.4056, Lon: 8.9100, Zone: "Europe/Rome", Region: Europe, TerminalCode: "VTE", TerminalName: "Voltri Terminal Europa"},
	{Code: "GRPIR", Name: "Piraeus", Country: "GR", Lat: 37.9400, Lon: 23.6300, Zone: "Europe/Athens", Region: Europe, TerminalCode: "PCT", TerminalName: "Piraeus Container Terminal", Hub: true},
	{Code: "MAPTM", Name: "Tanger Med", Country: "MA", Lat: 35.8900, Lon: -5.5000, Zone: "Africa/Casablanca", Region: Africa, TerminalCode: "TC1", TerminalName: "Tanger Med Terminal 1", Hub: true},
	// Americas
	{Code: "USLAX", Name: "Los Angeles", Country: "US", Lat: 33.7400, Lon: -118.2600, Zone: "America/Los_Angeles", Region: NAmerica, TerminalCode: "TRP", TerminalName: "TraPac Los Angeles"},
	{Code: "USLGB", Name: "Long Beach", Country: "US", Lat: 33.7540, Lon: -118.2160, Zone: "America/Los_Angeles", Region: NAmerica, TerminalCode: "LBCT", TerminalName: "Long Beach Container Terminal"},
	{Code: "USSEA", Name: "Seattle", Country: "US", Lat: 47.5800, Lon: -122.3500, Zone: "America/Los_Angeles", Region: NAmerica, TerminalCode: "T18", TerminalName: "Terminal 18"},
	{Code: "CAVAN", Name: "Vancouver", Country: "CA", Lat: 49.2900, Lon: -123.0800, Zone: "America/Vancouver", Region: NAmerica, TerminalCode: "CENT", TerminalName: "Centerm"},
	{Code: "USNYC", Name: "New York", Country: "US", Lat: 40.6700, Lon: -74.1500, Zone: "America/New_York", Region: NAmerica, TerminalCode: "PNCT", TerminalName: "Port Newark Container Terminal"},
	{Code: "USSAV", Name: "Savannah", Country: "US", Lat: 32.1200, Lon: -81.1400, Zone: "America/New_York", Region: NAmerica, TerminalCode: "GCT", TerminalName: "Garden City Terminal"},
	{Code: "USHOU", Name: "Houston", Country: "US", Lat: 29.6100, Lon: -95.0100, Zone: "America/Chicago", Region: NAmerica, TerminalCode: "BCT", TerminalName: "Barbours Cut Terminal"},
	{Code: "PAMIT", Name: "Manzanillo", Country: "PA", Lat: 9.3600, Lon: -79.8800, Zone: "America/Panama", Region: LatAm, TerminalCode: "MIT", TerminalName: "Manzanillo International Terminal", Hub: true},
	{Code: "MXZLO", Name: "Manzanillo", Country: "MX", Lat: 19.0500, Lon: -104.3100, Zone: "America/Mexico_City", Region: LatAm, TerminalCode: "SSA", TerminalName: "SSA Mexico"},
	{Code: "BRSSZ", Name: "Santos", Country: "BR", Lat: -23.9800, Lon: -46.3000, Zone: "America/Sao_Paulo", Region: LatAm, TerminalCode: "BTP", TerminalName: "Brasil Terminal Portuario"},
	// Oceania and Africa
	{Code: "AUMEL", Name: "Melbourne", Country: "AU", Lat: -37.8200, Lon: 144.9100, Zone: "Australia/Melbourne", Region: Oceania, TerminalCode: "SWT", TerminalName: "Swanson Dock West"},
	{Code: "ZADUR", Name: "Durban", Country: "ZA", Lat: -29.8700, Lon: 31.0300, Zone: "Africa/Johannesburg", Region: Africa, TerminalCode: "DCT", TerminalName: "Durban Container Terminal"},
	// Inland rail terminals
	{Code: "USCHI", Name: "Chicago", Country: "US", Lat: 41.8800, Lon: -87.6300, Zone: "America/Chicago", Region: NAmerica, TerminalCode: "LPC", TerminalName: "Logistics Park Chicago", Inland: true},
	{Code: "USMEM", Name: "Memphis", Country: "US", Lat: 35.1500, Lon: -90.0500, Zone: "America/Chicago", Region: NAmerica, TerminalCode: "IMX", TerminalName: "Memphis Intermodal Facility", Inland: true},
	{Code: "DEDUI", Name: "Duisburg", Country: "DE", Lat: 51.4300, Lon: 6.7600, Zone: "Europe/Berlin", Region: Europe, TerminalCode: "D3T", TerminalName: "Duisburg Trimodal Terminal", Inland: true},
	{Code: "CZPRG", Name: "Prague", Country: "CZ", Lat: 50.0800, Lon: 14.4400, Zone: "Europe/Prague", Region: Europe, TerminalCode: "MTU", TerminalName: "Metrans Terminal Uhrineves", Inland: true},
	{Code: "CHBSL", Name: "Basel", Country: "CH", Lat: 47.5600, Lon: 7.5900, Zone: "Europe/Zurich", Region: Europe, TerminalCode: "SRB", TerminalName: "Swissterminal Basel", Inland: true},
}

func init() {
	for i := range ports {
		loc, err := time.LoadLocation(ports[i].Zone)
		if err != nil {
			panic("journey: port time zone: " + err.Error())
		}
		ports[i].loc = loc
	}
}

// Ports returns the port table, sorted by UN/LOCODE.
func Ports() []Port {
	out := append([]Port(nil), ports...)
	sort.Slice(out, func(i, j int) bool { return out[i].Code < out[j].Code })
	return out
}

// LookupPort returns the port with that UN/LOCODE.
func LookupPort(code string) (Port, bool) {
	for _, p := range ports {
		if p.Code == code {
			return p, true
		}
	}
	return Port{}, false
}
