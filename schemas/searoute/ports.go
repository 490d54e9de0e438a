package searoute

// Port is a seaport or inland terminal contrack can place on a map: its
// UN/LOCODE, name, position, and the sea lane waypoints its approach joins
// (none for an inland terminal: it is reached by rail or road).
type Port struct {
	Code     string
	Name     string
	Lat, Lon float64
	// Approaches are waypoints of the lane graph a ship reaches from the
	// berth without crossing land; a port without them is joined to its
	// nearest two waypoints.
	Approaches []string
	Inland     bool
}

// ports are the container ports and inland terminals contrack knows the
// position of: every port of the sandbox's journeys and other large
// container ports. Positions are the terminals' (to about a kilometre),
// from public charts; a carrier event's own latitude and longitude win
// over this table.
var ports = []Port{
	// East Asia
	{"CNSHA", "Shanghai", 31.2304, 121.4737, []string{"YANGTZE_WUSONG"}, false},
	{"CNNGB", "Ningbo", 29.8683, 121.5440, []string{"ZHENHAI"}, false},
	{"CNYTN", "Yantian", 22.5710, 114.2690, []string{"PEARL_RIVER_OFF"}, false},
	{"CNTAO", "Qingdao", 36.0671, 120.3826, []string{"YELLOW_SEA"}, false},
	{"CNTXG", "Tianjin", 38.9800, 117.7900, []string{"BOHAI_STRAIT"}, false},
	{"CNXMN", "Xiamen", 24.4500, 118.0700, []string{"TAIWAN_STRAIT"}, false},
	{"HKHKG", "Hong Kong", 22.3193, 114.1694, []string{"PEARL_RIVER_OFF"}, false},
	{"SGSIN", "Singapore", 1.2644, 103.8400, []string{"SINGAPORE_STRAIT"}, false},
	{"KRPUS", "Busan", 35.1028, 129.0403, []string{"KOREA_STRAIT"}, false},
	{"JPTYO", "Tokyo", 35.6180, 139.7800, []string{"URAGA_CHANNEL"}, false},
	{"JPYOK", "Yokohama", 35.4500, 139.6700, []string{"URAGA_CHANNEL"}, false},
	{"TWKHH", "Kaohsiung", 22.6163, 120.2850, []string{"KAOHSIUNG_OFF"}, false},
	{"VNSGN", "Ho Chi Minh City", 10.7626, 106.7600, []string{"VUNG_TAU_OFF"}, false},
	{"THLCH", "Laem Chabang", 13.0827, 100.8830, []string{"BIGHT_OF_BANGKOK"}, false},
	{"MYPKG", "Port Klang", 3.0000, 101.3900, []string{"MALACCA_MID"}, false},
	{"MYTPP", "Tanjung Pelepas", 1.3667, 103.5500, []string{"SINGAPORE_WEST"}, false},
	{"IDJKT", "Jakarta", -6.1000, 106.8800, []string{"JAKARTA_OFF"}, false},
	// South Asia and the Middle East
	{"LKCMB", "Colombo", 6.9497, 79.8428, []string{"COLOMBO_OFF"}, false},
	{"INNSA", "Nhava Sheva", 18.9490, 72.9510, []string{"INDIA_WEST_OFF"}, false},
	{"INMUN", "Mundra", 22.7400, 69.7000, []string{"KUTCH_WEST"}, false},
	{"AEJEA", "Jebel Ali", 25.0112, 55.0611, []string{"JEBEL_ALI_OFF"}, false},
	{"OMSLL", "Salalah", 16.9400, 54.0000, []string{"ARABIAN_SEA", "YEMEN_EAST"}, false},
	{"SAJED", "Jeddah", 21.4800, 39.1700, []string{"RED_SEA_MID"}, false},
	{"EGPSD", "Port Said", 31.2600, 32.3000, []string{"SUEZ_NORTH"}, false},
	// Europe and the Mediterranean
	{"NLRTM", "Rotterdam", 51.9490, 4.1450, []string{"NORTH_SEA_SOUTH"}, false},
	{"DEHAM", "Hamburg", 53.5403, 9.9300, []string{"ELBE_MOUTH"}, false},
	{"DEBRV", "Bremerhaven", 53.5700, 8.5500, []string{"GERMAN_BIGHT"}, false},
	{"BEANR", "Antwerp", 51.2800, 4.3300, []string{"WESTERSCHELDE_MOUTH"}, false},
	{"GBFXT", "Felixstowe", 51.9600, 1.3300, []string{"NORTH_SEA_SOUTH", "DOVER_STRAIT"}, false},
	{"GBSOU", "Southampton", 50.9000, -1.4300, []string{"NAB"}, false},
	{"FRLEH", "Le Havre", 49.4800, 0.1100, []string{"CHANNEL_MID"}, false},
	{"PLGDN", "Gdansk", 54.4000, 18.6700, []string{"GDANSK_BAY"}, false},
	{"ESVLC", "Valencia", 39.4400, -0.3200, []string{"BALEARIC_SEA"}, false},
	{"ESBCN", "Barcelona", 41.3400, 2.1600, []string{"BALEARIC_SEA", "LIGURIAN_SEA"}, false},
	{"ESALG", "Algeciras", 36.1300, -5.4400, []string{"GIBRALTAR"}, false},
	{"ITGOA", "Genoa", 44.4056, 8.9100, []string{"LIGURIAN_SEA"}, false},
	{"GRPIR", "Piraeus", 37.9400, 23.6300, []string{"AEGEAN_SOUTH"}, false},
	{"MAPTM", "Tanger Med", 35.8900, -5.5000, []string{"GIBRALTAR"}, false},
	// Americas
	{"USLAX", "Los Angeles", 33.7400, -118.2600, []string{"LA_OFF"}, false},
	{"USLGB", "Long Beach", 33.7540, -118.2160, []string{"LA_OFF"}, false},
	{"USOAK", "Oakland", 37.8000, -122.3200, []string{"SAN_FRANCISCO_OFF"}, false},
	{"USSEA", "Seattle", 47.5800, -122.3500, []string{"ADMIRALTY_INLET"}, false},
	{"CAVAN", "Vancouver", 49.2900, -123.0800, []string{"GEORGIA_STRAIT"}, false},
	{"USNYC", "New York", 40.6700, -74.1500, []string{"NEW_YORK_OFF"}, false},
	{"USSAV", "Savannah", 32.1200, -81.1400, []string{"SAVANNAH_OFF"}, false},
	{"USCHS", "Charleston", 32.7800, -79.9200, []string{"CHARLESTON_OFF"}, false},
	{"USHOU", "Houston", 29.6100, -95.0100, []string{"HOUSTON_OFF"}, false},
	{"PAMIT", "Manzanillo", 9.3600, -79.8800, []string{"PANAMA_ATLANTIC"}, false},
	{"MXZLO", "Manzanillo", 19.0500, -104.3100, []string{"MANZANILLO_MX_OFF"}, false},
	{"BRSSZ", "Santos", -23.9800, -46.3000, []string{"SANTOS_OFF"}, false},
	// Oceania and Africa
	{"AUMEL", "Melbourne", -37.8200, 144.9100, []string{"PORT_PHILLIP_OFF"}, false},
	{"AUSYD", "Sydney", -33.9700, 151.2200, []string{"NSW_OFF"}, false},
	{"ZADUR", "Durban", -29.8700, 31.0300, []string{"DURBAN_OFF"}, false},
	// Inland rail terminals
	{"USCHI", "Chicago", 41.8800, -87.6300, nil, true},
	{"USMEM", "Memphis", 35.1500, -90.0500, nil, true},
	{"DEDUI", "Duisburg", 51.4300, 6.7600, nil, true},
	{"CZPRG", "Prague", 50.0800, 14.4400, nil, true},
	{"CHBSL", "Basel", 47.5600, 7.5900, nil, true},
}

// LookupPort returns the port with that UN/LOCODE.
func LookupPort(code string) (Port, bool) {
	p, ok := portIndex[code]
	return p, ok
}

var portIndex = func() map[string]Port {
	m := make(map[string]Port, len(ports))
	for _, p := range ports {
		m[p.Code] = p
	}
	return m
}()
