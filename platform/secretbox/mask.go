package secretbox

// MaskShowsFrom is the shortest secret whose last MaskShows characters Mask
// shows: a quarter at most, so a short secret is never mostly readable.
const (
	MaskShowsFrom = 16
	MaskShows     = 4
)

// Mask is how a stored secret is shown (GET /carrier/credentials, a
// webhook's auth headers, `contrack config`): "****" and its last four
// characters when it has at least MaskShowsFrom, "****" alone when shorter.
// Characters, not bytes.
func Mask(v string) string {
	r := []rune(v)
	if len(r) < MaskShowsFrom {
		return "****"
	}
	return "****" + string(r[len(r)-MaskShows:])
}
