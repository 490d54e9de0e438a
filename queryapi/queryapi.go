package queryapi

import "github.com/go-fuego/fuego"

// Deps are what the query side reads from.
type Deps struct{}

// Register adds the query endpoints to s.
func Register(s *fuego.Server, deps Deps) {
	registerAccount(s)
}
