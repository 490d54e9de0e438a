package queryapi

import "github.com/contrack/contrack/queryapi/journeycache"

// SetBeforeRefresh has f run as j's refresher takes lookups to read again,
// before it reads them (it may block to hold refreshes back). Call it
// before Run.
func SetBeforeRefresh(j *Journeys, f func(keys []journeycache.Key)) { j.beforeRefresh = f }
