// A small OpenAPI 3 viewer for /docs, served from the binary. Vendored
// viewers (Swagger UI, Redoc) embed dozens of external URLs (validators, CDN
// logos, links); this one reads only /openapi.json from this server.
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';

const METHODS = ['get', 'post', 'put', 'patch', 'delete', 'head'];

function resolve(spec, s) {
  let seen = 0;
  while (s && s.$ref && seen++ < 20) {
    const path = s.$ref.replace(/^#\//, '').split('/');
    s = path.reduce((o, k) => (o ? o[k.replace(/~1/g, '/').replace(/~0/g, '~')] : undefined), spec);
  }
  return s || {};
}

// sketch renders a schema as an indented, JSON-like outline.
function sketch(spec, s, depth = 0, stack = []) {
  const ref = s && s.$ref;
  const name = ref ? ref.split('/').pop() : '';
  if (ref && stack.includes(ref)) return name + ' (recursive)';
  const r = resolve(spec, s);
  const pad = '  '.repeat(depth + 1), end = '  '.repeat(depth);
  const next = ref ? [...stack, ref] : stack;
  const types = Array.isArray(r.type) ? r.type.join('|') : r.type;
  if (r.type === 'array' || (Array.isArray(r.type) && r.type.includes('array'))) {
    return '[' + sketch(spec, r.items || {}, depth, next) + ']';
  }
  if (r.properties) {
    if (depth > 5) return name || 'object';
    const req = new Set(r.required || []);
    const lines = Object.entries(r.properties).map(([k, v]) => {
      const d = resolve(spec, v).description;
      return `${pad}${k}${req.has(k) ? '' : '?'}: ${sketch(spec, v, depth + 1, next)}${d ? '  // ' + d.split('\n')[0] : ''}`;
    });
    return (name ? name + ' ' : '') + '{\n' + lines.join('\n') + '\n' + end + '}';
  }
  if (r.additionalProperties && typeof r.additionalProperties === 'object') {
    return '{ [key]: ' + sketch(spec, r.additionalProperties, depth, next) + ' }';
  }
  if (r.enum) return r.enum.map((e) => JSON.stringify(e)).join(' | ');
  for (const k of ['oneOf', 'anyOf', 'allOf']) if (r[k]) return r[k].map((x) => sketch(spec, x, depth, next)).join(k === 'allOf' ? ' & ' : ' | ');
  return (types || name || 'any') + (r.format ? ` (${r.format})` : '');
}

// describe drops the controller and middleware notes fuego appends to every
// description (Go internals, no use to an API user).
function describe(d) {
  if (!d) return [];
  const cut = d.lastIndexOf('\n---\n');
  if (cut >= 0) d = d.slice(cut + 5);
  return d.split(/\n\s*\n/).map((p) => p.trim()).filter(Boolean);
}

function Content({ spec, content }) {
  if (!content) return null;
  // One schema per body: JSON when offered (fuego also lists XML).
  const entries = Object.entries(content);
  const json = entries.filter(([type]) => type.includes('json'));
  return (json.length ? json : entries).map(([type, c]) => (
    <div key={type}>
      <div class="muted">{type}</div>
      {c.schema && <pre class="schema">{sketch(spec, c.schema)}</pre>}
    </div>
  ));
}

function Operation({ spec, path, method, op }) {
  const params = [...(spec.paths[path].parameters || []), ...(op.parameters || [])].map((p) => resolve(spec, p));
  const body = op.requestBody && resolve(spec, op.requestBody);
  const id = `${method}-${path}`.replace(/[^a-zA-Z0-9]+/g, '-');
  return (
    <details class="op" id={id}>
      <summary><span class={'method m-' + method}>{method.toUpperCase()}</span><code>{path}</code><span>{op.summary}</span></summary>
      <div>
        {describe(op.description).map((para, i) => <p key={i}>{para}</p>)}
        {op.security && op.security.length === 0 && <p class="muted">No API key needed.</p>}
        {params.length > 0 && (
          <div class="tablewrap"><table>
            <caption>Parameters</caption>
            <thead><tr><th scope="col">Name</th><th scope="col">In</th><th scope="col">Description</th></tr></thead>
            <tbody>{params.map((p) => <tr key={p.in + p.name}><td><code>{p.name}</code>{p.required ? ' (required)' : ''}</td><td>{p.in}</td><td>{p.description}</td></tr>)}</tbody>
          </table></div>
        )}
        {body && <><h3>Request body{body.required ? ' (required)' : ''}</h3><Content spec={spec} content={body.content} /></>}
        <h3>Responses</h3>
        {Object.entries(op.responses || {}).map(([code, r0]) => {
          const r = resolve(spec, r0);
          return <div key={code}><strong>{code}</strong> {r.description}<Content spec={spec} content={r.content} /></div>;
        })}
      </div>
    </details>
  );
}

function Docs({ specURL }) {
  const [spec, setSpec] = useState(null);
  const [err, setErr] = useState('');
  const [q, setQ] = useState('');
  useEffect(() => {
    fetch(specURL).then((r) => { if (!r.ok) throw new Error('HTTP ' + r.status); return r.json(); })
      .then(setSpec, (e) => setErr(e.message));
  }, []);
  if (err) return <main><p role="alert">Could not load <a href={specURL}>{specURL}</a>: {err}</p></main>;
  if (!spec) return <main><p>Loading…</p></main>;
  const groups = new Map();
  for (const [path, item] of Object.entries(spec.paths || {})) {
    for (const m of METHODS) {
      const op = item[m];
      if (!op) continue;
      const text = `${m} ${path} ${op.summary || ''}`.toLowerCase();
      if (q && !text.includes(q.toLowerCase())) continue;
      const tag = (op.tags && op.tags[0]) || 'Other';
      if (!groups.has(tag)) groups.set(tag, []);
      groups.get(tag).push([path, m, op]);
    }
  }
  const info = spec.info || {};
  return (
    <>
      <header class="top"><span class="brand">{info.title} API</span><span class="muted" style={{ color: '#fff' }}>version {info.version}</span>
        <nav class="main" aria-label="Links"><ul><li><a href={specURL}>openapi.json</a></li><li><a href="../console/">Console</a></li></ul></nav></header>
      <main>
        {info.description && <p>{info.description}</p>}
        <p>Every endpoint needs the <code>x-api-key</code> header unless it says otherwise.</p>
        <label>Filter operations<input type="search" value={q} onInput={(e) => setQ(e.currentTarget.value)} /></label>
        {[...groups.entries()].sort().map(([tag, ops]) => (
          <section key={tag} aria-label={tag}>
            <h2>{tag}</h2>
            {ops.map(([path, m, op]) => <Operation key={m + path} spec={spec} path={path} method={m} op={op} />)}
          </section>
        ))}
      </main>
    </>
  );
}

const root = document.getElementById('app');
root.textContent = ''; // the static "Loading" line; Preact 11 does not replace it
render(<Docs specURL={document.body.dataset.spec || '/openapi.json'} />, root);
