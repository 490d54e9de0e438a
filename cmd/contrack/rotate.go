package main

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/contrack/contrack/platform/secretbox"
)

// sealedColumn is one column of sealed secrets: how to list its rows (a
// row id and the secretbox context each was sealed for) and update one.
// Every user of secretbox that stores a ciphertext is listed here, so
// rotate-secrets leaves nothing under an old key.
type sealedColumn struct {
	name string
	// list returns id, context and ciphertext of every sealed row.
	list string
	// update sets the ciphertext ($2) of row $1 if it still holds $3.
	update string
	ctx    func(a, b string) string
}

var sealedColumns = []sealedColumn{
	{
		name:   "carrier credentials",
		list:   `SELECT account_id::text, scac, fields_enc FROM carrier_credentials`,
		update: `UPDATE carrier_credentials SET fields_enc = $3 WHERE account_id = $1::uuid AND scac = $2 AND fields_enc = $4`,
		ctx:    secretbox.CarrierCredentialsContext,
	},
	{
		name:   "carrier connector secrets",
		list:   `SELECT account_id::text, code, secret_enc FROM carrier_connectors WHERE secret_enc IS NOT NULL`,
		update: `UPDATE carrier_connectors SET secret_enc = $3 WHERE account_id = $1::uuid AND code = $2 AND secret_enc = $4`,
		ctx:    secretbox.CarrierConnectorContext,
	},
	{
		name:   "webhook secrets",
		list:   `SELECT account_id::text, '', secret_enc FROM webhooks`,
		update: `UPDATE webhooks SET secret_enc = $3 WHERE account_id = $1::uuid AND $2 = '' AND secret_enc = $4`,
		ctx:    func(a, _ string) string { return secretbox.WebhookSecretContext(a) },
	},
	{
		name:   "webhook auth headers",
		list:   `SELECT account_id::text, '', auth_headers_enc FROM webhooks WHERE auth_headers_enc IS NOT NULL`,
		update: `UPDATE webhooks SET auth_headers_enc = $3 WHERE account_id = $1::uuid AND $2 = '' AND auth_headers_enc = $4`,
		ctx:    func(a, _ string) string { return secretbox.WebhookAuthHeadersContext(a) },
	},
	{
		name:   "carrier signing secrets",
		list:   `SELECT id::text, '', signing_secret_enc FROM api_keys WHERE signing_secret_enc IS NOT NULL`,
		update: `UPDATE api_keys SET signing_secret_enc = $3 WHERE id = $1::uuid AND $2 = '' AND signing_secret_enc = $4`,
		ctx:    func(a, _ string) string { return secretbox.SigningSecretContext(a) },
	},
	{
		name:   "webhook messages",
		list:   `SELECT account_id::text, id::text, message_enc FROM deliveries WHERE message_enc IS NOT NULL`,
		update: `UPDATE deliveries SET message_enc = $3 WHERE account_id = $1::uuid AND id = $2::uuid AND message_enc = $4`,
		ctx:    func(a, _ string) string { return secretbox.WebhookMessageContext(a) },
	},
}

// rotateResult counts what rotateSecrets did.
type rotateResult struct{ Resealed, Current int }

// rotateSecrets re-seals every stored ciphertext that the current key did
// not seal. It is idempotent (a second run re-seals nothing) and safe while
// the stages run: a row is updated only if it still holds the ciphertext
// that was read, so a secret written meanwhile (already under the current
// key) is never overwritten. A ciphertext no key opens stops the run with
// its row named: nothing is skipped silently.
func rotateSecrets(ctx context.Context, pool *pgxpool.Pool, box *secretbox.Box) (rotateResult, error) {
	var res rotateResult
	for _, col := range sealedColumns {
		type row struct {
			a, b string
			enc  []byte
		}
		rows, err := pool.Query(ctx, col.list)
		if err != nil {
			return res, fmt.Errorf("rotate %s: list: %w", col.name, err)
		}
		all, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (row, error) {
			var x row
			err := r.Scan(&x.a, &x.b, &x.enc)
			return x, err
		})
		if err != nil {
			return res, fmt.Errorf("rotate %s: list: %w", col.name, err)
		}
		for _, x := range all {
			out, changed, err := box.Reseal(x.enc, col.ctx(x.a, x.b))
			if err != nil {
				return res, fmt.Errorf("rotate %s: row %s %s: %w (is its key in CONTRACK_SECRET_KEYS_PREVIOUS?)", col.name, x.a, x.b, err)
			}
			if !changed {
				res.Current++
				continue
			}
			tag, err := pool.Exec(ctx, col.update, x.a, x.b, out, x.enc)
			if err != nil {
				return res, fmt.Errorf("rotate %s: row %s %s: update: %w", col.name, x.a, x.b, err)
			}
			if tag.RowsAffected() == 0 {
				// Rewritten (under the current key) or deleted meanwhile.
				res.Current++
				continue
			}
			res.Resealed++
		}
	}
	return res, nil
}
