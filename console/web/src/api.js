// The console's only way to the server: the public API, same origin, with the
// key from sessionStorage as x-api-key. No other authority.
const KEY = 'contrack.apiKey';

export const session = {
  key: () => sessionStorage.getItem(KEY) || '',
  set: (k) => sessionStorage.setItem(KEY, k),
  clear: () => sessionStorage.removeItem(KEY),
};

export class APIError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

// call sends one request to the API (paths are absolute on this origin) and
// returns the parsed body, or throws APIError with the server's message.
export async function call(method, path, body, key = session.key()) {
  const init = { method, headers: { 'x-api-key': key, accept: 'application/json' }, credentials: 'same-origin' };
  if (body !== undefined) {
    init.headers['content-type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  let resp;
  try {
    resp = await fetch(path, init);
  } catch (e) {
    throw new APIError(0, 'The server did not answer: ' + e.message);
  }
  const text = await resp.text();
  let data = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = null;
  }
  if (!resp.ok) {
    throw new APIError(resp.status, (data && data.message) || `HTTP ${resp.status}`);
  }
  return data;
}

export const qs = (params) => {
  const u = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') u.set(k, v);
  const s = u.toString();
  return s ? '?' + s : '';
};
