// The contrack console: a browser view over the public API only.
import { render } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { call, qs, session } from './api.js';
import { BarChart } from './chart.jsx';
import { classifiers, eventTitle, isDateLike, knots, label, latLon, locationOf, nm, vesselOf, when } from './format.js';
import { JourneyMap } from './map.jsx';

const CONNECTION = ['NO_CREDENTIALS', 'PENDING', 'CONNECTED', 'UNAUTHORIZED', 'CARRIER_ERROR', 'PUSH_ONLY'];
const PAGES = [
  ['subscriptions', 'Subscriptions'],
  ['webhook', 'Webhook'],
  ['carriers', 'Carriers'],
];

function useHash() {
  const [h, setH] = useState(location.hash);
  useEffect(() => {
    const on = () => setH(location.hash);
    addEventListener('hashchange', on);
    return () => removeEventListener('hashchange', on);
  }, []);
  return h.replace(/^#\/?/, '');
}

// Status is the page's polite live region: results and errors of actions.
function Status({ s }) {
  return (
    <p class={'status ' + (s ? s.kind : '')} role={s && s.kind === 'error' ? 'alert' : 'status'} aria-live="polite">
      {s ? s.text : ''}
    </p>
  );
}
const ok = (text) => ({ kind: 'ok', text });
const bad = (e) => ({ kind: 'error', text: e.message || String(e) });

function badgeClass(v) {
  if (['CONNECTED', 'OPEN', 'DELIVERED', 'OK', 'PUSH_ONLY'].includes(v)) return 'b-ok';
  if (['PENDING', 'NO_CREDENTIALS', 'FAILED', 'STRETCHED'].includes(v)) return 'b-warn';
  if (['UNAUTHORIZED', 'CARRIER_ERROR', 'DEAD', 'ERROR', 'UNREACHABLE'].includes(v)) return 'b-err';
  return 'b-muted';
}
const Badge = ({ v }) => <span class={'badge ' + badgeClass(v)}>{v || '—'}</span>;

// sep joins the parts that are there with " · ", so a missing one leaves no
// dangling separator.
const sep = (...parts) => parts.filter((p) => p !== undefined && p !== null && p !== false && p !== '')
  .flatMap((p, i) => (i ? [' · ', p] : [p]));

// useWarningDays is the account's lfdWarningDays (GET /account/alert-settings),
// the days before a last free day that count as near; null while unknown.
function useWarningDays() {
  const [days, setDays] = useState(null);
  useEffect(() => {
    call('GET', '/account/alert-settings').then((a) => setDays(a.lfdWarningDays ?? 2), () => setDays(null));
  }, []);
  return days;
}

const closedReasons = {
  DELETED: 'closed with DELETE', EXPIRED: 'its expiry date was reached',
  JOURNEY_ENDED: 'the journey ended (the empty container was returned)', IDLE: 'no new event came for the idle limit',
};
// closedText says when and why a CLOSED subscription closed.
const closedText = (x) => 'Closed' + (x.closedDateTime ? ' ' + when(x.closedDateTime) : '') +
  (x.closedReason ? ': ' + (closedReasons[x.closedReason] || label(x.closedReason)) : '');

// noEventsText says why a subscription has no events, from its connection.
function noEventsText(sub) {
  const scac = (sub && sub.scacCode) || 'The carrier';
  switch (sub && sub.connectionStatus) {
    case 'NO_CREDENTIALS': return `No events: no credentials are stored for ${scac}, so it is not polled. Store them on the Carriers page.`;
    case 'UNAUTHORIZED': return `No events: ${scac} refused the stored credentials. Store new ones on the Carriers page.`;
    case 'CARRIER_ERROR': return `No events: ${scac} has answered only with errors so far; contrack keeps polling.`;
    case 'CONNECTED': return `No events: ${scac} answered, but does not know this shipment (yet). Check the number; contrack keeps polling.`;
    case 'PUSH_ONLY': return `No events yet: ${scac} pushes its events to contrack, and none has come for this shipment.`;
  }
  return 'No events yet: the carrier is polled within seconds of subscribing.';
}

// ---------- sign in ----------

function SignIn({ onSignedIn }) {
  const [key, setKey] = useState('');
  const [s, setS] = useState(null);
  const submit = async (ev) => {
    ev.preventDefault();
    setS({ kind: '', text: 'Checking the key…' });
    try {
      const account = await call('GET', '/account', undefined, key.trim());
      session.set(key.trim());
      onSignedIn(account);
    } catch (e) {
      setS(bad(e.status === 403 ? { message: 'That key was not accepted (unknown or revoked).' } : e));
    }
  };
  return (
    <main id="main" class="signin">
      <h1>contrack console</h1>
      <p>Sign in with an API key. It stays in this browser tab's session storage and is sent only to this server.</p>
      <form onSubmit={submit} class="panel">
        <label>API key
          <input id="api-key" name="api-key" type="password" autocomplete="off" required value={key}
            onInput={(e) => setKey(e.currentTarget.value)} placeholder="ct_sandbox_…" />
        </label>
        <p><button type="submit" id="sign-in">Sign in</button></p>
        <Status s={s} />
      </form>
      <p class="muted">Make a key with <code>bin/contrack admin create-key --client acme --env sandbox</code>. The API is described at <a href="../docs/">/docs</a>.</p>
    </main>
  );
}

// ---------- subscriptions ----------

function Subscriptions() {
  const [filter, setFilter] = useState({ status: '', prefix: '', connection: '', attention: false });
  const [subs, setSubs] = useState(null);
  const [next, setNext] = useState('');
  const [s, setS] = useState(null);
  // The SCAC is left empty by default: contrack then infers the carrier.
  const [form, setForm] = useState({ ref: '', scac: '', kind: 'containerNumber', number: '' });
  const warnDays = useWarningDays();

  const load = async (more, f = filter) => {
    try {
      if (f.attention) {
        // Open subscriptions with a box on hold, near or past its last
        // free day, or on detention: the most urgent first, one answer.
        const data = await call('GET', '/subscriptions/attention');
        setSubs(data.subscriptions.filter((x) => !f.prefix || x.subscriptionReference.startsWith(f.prefix)));
        setNext('');
        return;
      }
      const data = await call('GET', '/subscriptions' + qs({
        subscriptionStatus: filter.status, referencePrefix: filter.prefix, limit: 200, nextToken: more ? next : '',
      }));
      setSubs(more ? [...(subs || []), ...data.subscriptions] : data.subscriptions);
      setNext(data.nextToken || '');
    } catch (e) {
      setS(bad(e));
    }
  };
  useEffect(() => { load(false); }, []);

  const create = async (ev) => {
    ev.preventDefault();
    try {
      const body = { subscriptionReference: form.ref.trim(), [form.kind]: form.number.trim() };
      if (form.scac.trim()) body.scacCode = form.scac.trim().toUpperCase();
      const r = await call('POST', '/subscription/equipment', body);
      setS(ok(`${r.message}: ${r.subscriptionReference}`));
      if (!body.scacCode) setForm((f) => ({ ...f, scac: '' }));
      setForm({ ...form, ref: '', number: '' });
      load(false);
    } catch (e) {
      setS(bad(e));
    }
  };
  const close = async (ref) => {
    try {
      const r = await call('DELETE', '/subscription/' + encodeURIComponent(ref));
      setS(ok(`${r.message}: ${ref}` + (r.stoppedTracking === true ? ' (carrier polling stopped)' : '')));
      load(false);
    } catch (e) {
      setS(bad(e));
    }
  };
  const shown = (subs || []).filter((x) => !filter.connection || x.connectionStatus === filter.connection)
    .filter((x) => !filter.attention || !filter.status || x.subscriptionStatus === filter.status);
  const set = (k) => (e) => setFilter({ ...filter, [k]: e.currentTarget.value });
  const setAttention = (e) => {
    const f = { ...filter, attention: e.currentTarget.checked };
    setFilter(f);
    setSubs(null);
    load(false, f);
  };
  const setF = (k) => (e) => setForm({ ...form, [k]: e.currentTarget.value });

  return (
    <>
      <h1>Subscriptions</h1>
      <form class="row panel" onSubmit={(e) => { e.preventDefault(); load(false); }} aria-label="Filter subscriptions">
        <label>Status
          <select id="f-status" value={filter.status} onChange={set('status')}>
            <option value="">Any</option><option>OPEN</option><option>CLOSED</option>
          </select>
        </label>
        <label>Reference starts with
          <input id="f-prefix" value={filter.prefix} onInput={set('prefix')} />
        </label>
        <label>Connection
          <select id="f-connection" value={filter.connection} onChange={set('connection')}>
            <option value="">Any</option>
            {CONNECTION.map((c) => <option key={c}>{c}</option>)}
          </select>
        </label>
        <label class="check"><span><input id="f-attention" type="checkbox" checked={filter.attention} onChange={setAttention} /> Needs attention</span>
          <small class="muted" id="f-attention-hint">{sep('holds', warnDays === null ? 'last free day near' : `last free day within ${plural(warnDays, 'day')}`, 'demurrage running')}</small></label>
        <button type="submit">Apply filters</button>
      </form>
      <Status s={s} />
      {subs === null ? <p>Loading…</p> : (
        <div class="tablewrap">
          <table class="cards-sm" id="subscriptions">
            <caption>{shown.length} subscription{shown.length === 1 ? '' : 's'}{filter.attention ? ' needing attention, the most urgent first' : ''}{filter.connection ? ` with connection ${filter.connection}` : ''}</caption>
            <thead><tr><th scope="col">Reference</th><th scope="col">Shipment</th><th scope="col">Carrier</th>
              {filter.attention && <th scope="col">Needs attention</th>}
              <th scope="col">Status</th><th scope="col">Connection</th><th scope="col">Created</th><th scope="col">Expires</th><th scope="col"><span class="skip-label">Actions</span></th></tr></thead>
            <tbody>
              {shown.map((x) => (
                <tr key={x.subscriptionReference}>
                  <td data-label="Reference"><a href={'#/journey/' + encodeURIComponent(x.subscriptionReference)}>{x.subscriptionReference}</a></td>
                  <td data-label="Shipment" class="mono">{[x.equipmentNumber, x.bookingNumber && 'BKG ' + x.bookingNumber, x.billNumber && 'B/L ' + x.billNumber].filter(Boolean).join(' · ')}</td>
                  <td data-label="Carrier">{x.scacCode}</td>
                  {filter.attention && <td data-label="Needs attention" class="attention">{(x.containers || []).map((c) =>
                    <div key={c.equipmentNumber}><span class="mono">{c.equipmentNumber}</span> <AttentionBadges v={c.readiness} /></div>)}</td>}
                  <td data-label="Status"><Badge v={x.subscriptionStatus} />{x.subscriptionStatus === 'CLOSED' && <div class="muted closed-reason">{closedText(x)}</div>}</td>
                  <td data-label="Connection"><Badge v={x.connectionStatus} /></td>
                  <td data-label="Created">{when(x.subscriptionCreationDate)}</td>
                  <td data-label="Expires">{when(x.subscriptionExpiryDate)}</td>
                  <td data-label="Actions">{x.subscriptionStatus === 'OPEN' &&
                    <button class="danger" type="button" onClick={() => close(x.subscriptionReference)}
                      aria-label={'Close subscription ' + x.subscriptionReference}>Close</button>}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {next && <p><button class="secondary" type="button" onClick={() => load(true)}>Load more</button></p>}
      <h2 id="create-h">New subscription</h2>
      <form class="row panel" onSubmit={create} aria-labelledby="create-h">
        <label>Reference<input id="c-ref" required value={form.ref} onInput={setF('ref')} /></label>
        <label>Carrier SCAC<input id="c-scac" maxLength={4} size={6} value={form.scac} onInput={setF('scac')} placeholder="inferred" aria-describedby="c-scac-hint" /></label>
        <label>Track by
          <select id="c-kind" value={form.kind} onChange={setF('kind')}>
            <option value="containerNumber">Container</option>
            <option value="bookingNumber">Booking</option>
            <option value="billNumber">Bill of lading</option>
          </select>
        </label>
        <label>Number<input id="c-number" required value={form.number} onInput={setF('number')} class="mono" /></label>
        <button type="submit" id="c-submit">Subscribe</button>
      </form>
      <p class="muted" id="c-scac-hint">Leave the SCAC empty and contrack infers the carrier from the number (GET /carrier/infer).</p>
    </>
  );
}

// ---------- readiness and alerts ----------

const money = (v, cur) => `${cur || ''} ${Number(v || 0).toLocaleString('en', { maximumFractionDigits: 2 })}`.trim();
const plural = (n, one) => `${n} ${one}${n === 1 ? '' : 's'}`;

// lfdCountdown says how far the last free day is, as of the readiness.
function lfdCountdown(v) {
  const d = v.daysToLastFreeDay;
  if (d === undefined || d === null) return '';
  if (d > 0) return `${plural(d, 'day')} left`;
  if (d === 0) return 'today is the last free day';
  return `${plural(-d, 'day')} past`;
}

// AttentionBadges names why a container needs attention.
function AttentionBadges({ v }) {
  const out = [];
  for (const a of v.attention || []) {
    if (a === 'HOLD') out.push(<span key={a} class="badge b-err">On hold</span>);
    else if (a === 'LFD_SOON') out.push(<span key={a} class="badge b-warn">{sep(v.lastFreeDay ? 'Last free day ' + v.lastFreeDay : 'Last free day near', lfdCountdown(v))}</span>);
    else if (a === 'DEMURRAGE') out.push(<span key={a} class="badge b-err">{sep('Demurrage ' + plural(v.demurrageDays || 0, 'day'), v.estimatedCost && money(v.estimatedCost.demurrage, v.estimatedCost.currency))}</span>);
    else if (a === 'DETENTION') out.push(<span key={a} class="badge b-err">{sep('Detention ' + plural(v.detentionDays || 0, 'day'), v.estimatedCost && money(v.estimatedCost.detention, v.estimatedCost.currency))}</span>);
    else out.push(<Badge key={a} v={a} />);
  }
  return out.length ? <>{out}</> : <span class="muted">—</span>;
}

function Readiness({ v, warnDays }) {
  const near = warnDays ?? 2;
  const rule = v.freeTimeRule;
  const cost = v.estimatedCost;
  let pickup = 'Not yet available';
  if (v.pickedUpDateTime) pickup = 'Picked up ' + when(v.pickedUpDateTime);
  else if (v.onHold) pickup = 'Not available: on hold';
  else if (v.availableForPickup) pickup = 'Available since ' + when(v.availableDateTime);
  return (
    <div class="readiness" id="readiness">
      <p><AttentionBadges v={v} /></p>
      <dl class="facts">
        <div><dt>Port of discharge</dt><dd class="mono">{v.UNLocationCode || '—'}</dd></div>
        <div><dt>Discharged</dt><dd>{when(v.dischargedDateTime)}</dd></div>
        <div><dt>Pick-up</dt><dd id="pickup">{pickup}</dd></div>
        <div><dt>Last free day</dt><dd id="lfd">{v.lastFreeDay ? sep(v.lastFreeDay, lfdCountdown(v) && <span class={'countdown ' + ((v.daysToLastFreeDay ?? 1) < 0 ? 'b-err' : (v.daysToLastFreeDay ?? near + 1) <= near ? 'b-warn' : '')}>{lfdCountdown(v)}</span>) : '—'}</dd></div>
        <div><dt>Demurrage</dt><dd id="demurrage">{plural(v.demurrageDays || 0, 'day')}</dd></div>
        <div><dt>Detention</dt><dd id="detention">{sep(plural(v.detentionDays || 0, 'day'), v.detentionLastFreeDay && <span class="muted">free until {v.detentionLastFreeDay}</span>)}</dd></div>
        <div><dt>Estimated cost</dt><dd id="cost">{cost ? sep(money(cost.total, cost.currency), <span class="muted">demurrage {money(cost.demurrage, cost.currency)}</span>, <span class="muted">detention {money(cost.detention, cost.currency)}</span>) : '—'}</dd></div>
      </dl>
      {rule ? <p class="muted" id="rule">{sep(<>Free time at <span class="mono">{rule.port}</span> for <span class="mono">{rule.scacCode}</span>: {plural(rule.demurrageDays, 'day')} demurrage, {plural(rule.detentionDays, 'day')} detention{rule.excludeWeekends ? ', weekends excluded' : ''}</>,
        rule.demurrageRate !== undefined && rule.demurrageRate !== null && `${money(rule.demurrageRate, rule.currency)} a day`, v.asOf && `as of ${when(v.asOf)}`)}</p> :
        <p class="muted" id="rule">No free-time rule applies to this container, so no last free day is counted: set rules with <code>PUT /account/free-time</code>.</p>}
      <h4>Holds</h4>
      {(v.holds || []).length === 0 ? <p class="muted">No hold reported.</p> : (
        <ul class="plain holds" id="holds">
          {v.holds.map((h, i) => (
            <li key={i}>{sep(<><strong>{holdName(h.holdType)} hold</strong>{h.holdCode && <> <span class="mono">{h.holdCode}</span></>}</>, h.placedDateTime && 'placed ' + when(h.placedDateTime))}
              {' '}{h.releasedDateTime ? <span class="badge b-ok">Released {when(h.releasedDateTime)}</span> : <span class="badge b-err">Open</span>}</li>
          ))}
        </ul>
      )}
    </div>
  );
}

const holdName = (k) => ({ CUSTOMS: 'Customs', FREIGHT: 'Freight', TERMINAL: 'Terminal' }[k] || label(k || 'Hold'));

// alertText says what an alert means, from its fields.
function alertText(a) {
  const at = a.UNLocationCode ? ` at ${a.UNLocationCode}` : '';
  const vessel = (v) => v ? [v.vesselName, v.voyage && 'voyage ' + v.voyage].filter(Boolean).join(' ') || v.vesselIMONumber : '—';
  switch (a.alertType) {
    case 'ETA_CHANGED': {
      const m = a.changeMinutes || 0;
      const h = Math.floor(Math.abs(m) / 60), mm = Math.abs(m) % 60;
      return `ETA${at} moved ${m >= 0 ? 'later' : 'earlier'} by ${h} h${mm ? ' ' + mm + ' min' : ''}: from ${when(a.previousDateTime)} to ${when(a.newDateTime)}`;
    }
    case 'ROLLED': return `Rolled${at}: from ${vessel(a.previousVessel)} to ${vessel(a.newVessel)}`;
    case 'ARRIVED': return `Vessel arrived${at}`;
    case 'AVAILABLE_FOR_PICKUP': return `Available for pick-up${at}`;
    case 'HOLD_PLACED': return `${holdName(a.holdType)} hold placed${at} (${a.holdCode})`;
    case 'HOLD_RELEASED': return `${holdName(a.holdType)} hold released${at}`;
    case 'LFD_APPROACHING': return `Last free day ${a.lastFreeDay}${at}: ${plural(a.daysLeft ?? 0, 'day')} left`;
    case 'DEMURRAGE_STARTED': return `Demurrage started${at}: the last free day was ${a.lastFreeDay}`;
  }
  return label(a.alertType);
}

const alertBadge = { HOLD_PLACED: 'b-err', DEMURRAGE_STARTED: 'b-err', LFD_APPROACHING: 'b-warn', ROLLED: 'b-warn', ETA_CHANGED: 'b-warn' };

function Alerts({ alerts, error }) {
  if (error) return <p class="status error" id="alerts-error">Alerts could not be read: {error}</p>;
  if (alerts === null) return <p>Loading…</p>;
  if (alerts.length === 0) return <p class="muted" id="no-alerts">No alerts yet. Alerts report what changes after subscribing: ETA moves, rolls, the arrival, holds, availability and the last free day.</p>;
  return (
    <ul class="plain milestones" id="alerts">
      {alerts.map((a) => (
        <li key={a.alertID} data-type={a.alertType}>
          <span class={'badge ' + (alertBadge[a.alertType] || 'b-ok')}>{label(a.alertType)}</span>{' '}
          <span class="mono">{a.equipmentReference}</span> · {alertText(a)}
          <div class="muted">{when(a.alertDateTime)}</div>
        </li>
      ))}
    </ul>
  );
}

// ---------- journey ----------

function Milestone({ m }) {
  const type = m.enhancedEventType || m.type || 'MILESTONE';
  const skip = new Set(['enhancedEventType', 'type', 'UNLocationCode', 'location', 'eventLocation', 'locationName', 'eventDateTime']);
  const times = [], others = [];
  for (const [k, v] of Object.entries(m)) {
    if (skip.has(k) || v === null || v === undefined || v === '' || typeof v === 'object') continue;
    (isDateLike(v) ? times : others).push([k, v]);
  }
  const prev = times.find(([k]) => /prev|old|prior|from/i.test(k));
  const nu = times.find(([k]) => /new|to$|current|revised/i.test(k));
  return (
    <li class="milestone" data-type={type}>
      <strong>{label(type)}</strong>{locationOf(m) && <> at <span class="mono">{locationOf(m)}</span></>}
      {m.eventDateTime && <> · {when(m.eventDateTime)}</>}
      {prev && nu && <div>ETA moved from <span class="mono">{when(prev[1])}</span> to <span class="mono">{when(nu[1])}</span></div>}
      {times.filter((t) => t !== prev && t !== nu).map(([k, v]) => <div key={k} class="muted">{label(k)}: {when(v)}</div>)}
      {others.map(([k, v]) => <div key={k} class="muted">{label(k)}: {String(v)}</div>)}
    </li>
  );
}

function JourneyResult({ r, sub, warnDays }) {
  const events = [...(r.sourceEvents || []), ...(r.vesselEvents || [])]
    .filter((e) => e && e.eventDateTime)
    .sort((a, b) => new Date(a.eventDateTime) - new Date(b.eventDateTime));
  const milestones = r.enhancedEvents || [];
  const revisions = milestones.filter((m) => /ETA/.test(m.enhancedEventType || '') &&
    Object.keys(m).some((k) => /prev|old|prior/i.test(k)));
  const seen = new Set();
  const tx = milestones.filter((m) => m.enhancedEventType === 'TRANSSHIPMENT')
    .map(locationOf).filter((l) => l && !seen.has(l) && seen.add(l));
  const withVessel = events.filter((e) => vesselOf(e));
  const lastAct = [...withVessel].reverse().find((e) => e.eventClassifierCode === 'ACT');
  const fromEvents = vesselOf(lastAct || withVessel[0] || {});
  // The result's vessel (the one carrying the container now, or next) when
  // the API gives it; the voyage number comes from the events.
  const vessel = r.vessel && r.vessel.name ? { ...fromEvents, name: r.vessel.name, imo: r.vessel.imo } : fromEvents;
  const pos = r.vessel && r.vessel.position;
  const route = r.route && r.route.geometry && (r.route.geometry.coordinates || []).length > 0 ? r.route : null;
  const pred = r.arrivalPrediction;
  const id = 'map-' + String(r.equipmentNumber || 'x').replace(/[^A-Za-z0-9]/g, '');
  const now = Date.now();
  const nextIdx = events.findIndex((e) => e.eventClassifierCode !== 'ACT' && new Date(e.eventDateTime) > now);
  return (
    <section class="journey" aria-labelledby={'j-' + r.equipmentNumber}>
      <h2 id={'j-' + r.equipmentNumber}>Container <span class="mono">{r.equipmentNumber || '—'}</span> · {r.scacCode} <Badge v={r.trackingStatus} /></h2>
      <h3>Route</h3>
      <ol class="route" aria-label="Route from port of loading to port of discharge">
        <li><span class="stop"><small>POL</small>{r.POL || '—'}</span></li>
        {tx.map((l) => <li key={l}><span class="stop tx"><small>Transshipment</small>{l}</span></li>)}
        <li><span class="stop"><small>POD</small>{r.POD || '—'}</span></li>
      </ol>
      <dl class="facts">
        <div><dt>Last location</dt><dd class="mono" id="last-location">{r.lastLocation || '—'}</dd></div>
        <div><dt>Vessel</dt><dd id="vessel">{vessel && vessel.name ? `${vessel.name}${vessel.imo ? ' (IMO ' + vessel.imo + ')' : ''}` : '—'}</dd></div>
        <div><dt>Voyage</dt><dd class="mono" id="voyage">{(vessel && vessel.voyage) || '—'}</dd></div>
        <div><dt>Events</dt><dd>{events.length}</dd></div>
        {pos && <div><dt>Position</dt><dd id="position">{latLon(pos.latitude, pos.longitude)}<span class="muted"> · {when(pos.at)} · {knots(pos.speedKnots)} · {Math.round(pos.course)}°</span></dd></div>}
        {route && route.properties && <div><dt>Sea route</dt><dd id="route-nm">{nm(route.properties.sailedNM || 0)} sailed · {nm(route.properties.remainingNM || 0)} to go</dd></div>}
        {pred && pred.POD && <div><dt>Arrival at POD (contrack)</dt><dd id="predicted-pod">{when(pred.POD.predictedDateTime)}
          {pred.POD.carrierDateTime && <span class="muted"> · carrier {when(pred.POD.carrierDateTime)} ({pred.POD.differenceHours > 0 ? '+' : ''}{pred.POD.differenceHours} h)</span>}</dd></div>}
      </dl>
      <h3>Map</h3>
      {route ? <JourneyMap id={id} route={route} vessel={r.vessel} /> :
        <p class="muted no-map">No sea route to draw yet: the carrier has named no vessel passage for this container.</p>}
      <h3>Terminal readiness</h3>
      {r.readiness ? <Readiness v={r.readiness} warnDays={warnDays} /> :
        <p class="muted" id="no-readiness">Not discharged at the port of discharge yet: holds, availability and the last free day show here once it is.</p>}
      <h3>Milestones</h3>
      {milestones.length === 0 ? <p class="muted">No milestones derived yet.</p> :
        <ul class="plain milestones" id="milestones">{milestones.map((m, i) => <Milestone key={i} m={m} />)}</ul>}
      <h3>ETA revisions</h3>
      {revisions.length === 0 ? <p class="muted">No ETA revision recorded.</p> :
        <ul class="plain milestones" id="eta-revisions">{revisions.map((m, i) => <Milestone key={i} m={m} />)}</ul>}
      <h3>Timeline</h3>
      {events.length === 0 ? <p class="muted no-events">{noEventsText(sub)}</p> : (
        <ol class="timeline" id="timeline">
          {events.map((e, i) => {
            const v = vesselOf(e);
            return (
              <li key={i} class={(e.eventClassifierCode || '') + (i === nextIdx ? ' next' : '')}>
                <span class="when">{when(e.eventDateTime)}</span>{' '}
                <span class={'badge b-' + e.eventClassifierCode}>{classifiers[e.eventClassifierCode] || e.eventClassifierCode}</span>
                {i === nextIdx && <span class="badge b-warn">Next</span>}
                <span class="what">{eventTitle(e)}{locationOf(e) && <> at {locationOf(e)}</>}
                  {v && <span class="muted"> · {v.name}{v.voyage ? ' voyage ' + v.voyage : ''}</span>}
                  {e.emptyIndicatorCode && <span class="muted"> · {e.emptyIndicatorCode}</span>}</span>
              </li>
            );
          })}
        </ol>
      )}
    </section>
  );
}

function Journey({ reference: ref }) {
  const [sub, setSub] = useState(null);
  const [res, setRes] = useState(null);
  const [alerts, setAlerts] = useState(null);
  const [alertsErr, setAlertsErr] = useState('');
  // missing: the reference is no subscription of this account.
  const [missing, setMissing] = useState(false);
  const [s, setS] = useState(null);
  const warnDays = useWarningDays();
  const load = async () => {
    let x;
    try {
      x = await call('GET', '/subscription/' + encodeURIComponent(ref));
    } catch (e) {
      if (e.status === 404) setMissing(true);
      else setS(bad(e));
      return;
    }
    setSub(x);
    call('GET', '/subscription/' + encodeURIComponent(ref) + '/alerts?limit=50').then((a) => { setAlerts(a.alerts); setAlertsErr(''); },
      (e) => { setAlerts(null); setAlertsErr(e.message || String(e)); });
    try {
      const q = x.billNumber ? { billNumber: x.billNumber } : x.bookingNumber ? { bookingNumber: x.bookingNumber } : {};
      if (x.equipmentNumber) q.equipmentNumber = x.equipmentNumber;
      const j = await call('GET', '/subscription/equipment' + qs(q));
      // The pull is the account's journeys of the number, whichever
      // subscription tracks them: keep this subscription's carrier and
      // container only.
      setRes((j.results || []).filter((r) => r.scacCode === x.scacCode && (!x.equipmentNumber || r.equipmentNumber === x.equipmentNumber)));
      setS(null);
    } catch (e) {
      setS(bad(e));
    }
  };
  useEffect(() => { setSub(null); setRes(null); setAlerts(null); setAlertsErr(''); setMissing(false); load(); }, [ref]);
  if (missing) {
    return (
      <>
        <p><a href="#/subscriptions">← Subscriptions</a></p>
        <h1>Journey of <span class="mono">{ref}</span></h1>
        <p class="status error" role="alert" id="not-found">Subscription not found: this account has no subscription with the reference <span class="mono">{ref}</span>.</p>
      </>
    );
  }
  return (
    <>
      <p><a href="#/subscriptions">← Subscriptions</a></p>
      <h1>Journey of <span class="mono">{ref}</span></h1>
      {sub && <p>{sub.scacCode} · <span class="mono">{[sub.equipmentNumber, sub.bookingNumber && 'BKG ' + sub.bookingNumber, sub.billNumber && 'B/L ' + sub.billNumber].filter(Boolean).join(' · ')}</span> · <Badge v={sub.subscriptionStatus} /> <Badge v={sub.connectionStatus} />{' '}
        <button class="secondary" type="button" onClick={load}>Refresh</button></p>}
      {sub && sub.subscriptionStatus === 'CLOSED' && <p id="closed">{closedText(sub)}</p>}
      <Status s={s} />
      <section aria-labelledby="alerts-h">
        <h2 id="alerts-h">Alerts</h2>
        {sub || alertsErr ? <Alerts alerts={alerts} error={alertsErr} /> : (!s && <p>Loading…</p>)}
      </section>
      {res === null ? (!s && <p>Loading…</p>) : res.length === 0 ? <p class="no-events" id="no-journey">{noEventsText(sub)}</p> :
        res.map((r) => <JourneyResult key={r.equipmentNumber} r={r} sub={sub} warnDays={warnDays} />)}
    </>
  );
}

// ---------- webhook ----------

// The most auth headers a webhook carries (POST /webhook/configure's authHeaders).
const MAX_AUTH_HEADERS = 5;

function Webhook() {
  const [cfg, setCfg] = useState(null);
  const [url, setUrl] = useState('');
  // New auth headers typed in ({name, value} rows); none typed keeps the stored ones.
  const [hdrs, setHdrs] = useState([]);
  const [clearHdrs, setClearHdrs] = useState(false);
  const [secret, setSecret] = useState('');
  const [status, setStatus] = useState('');
  const [dels, setDels] = useState(null);
  const [s, setS] = useState(null);
  const loadCfg = async () => {
    try {
      const c = await call('GET', '/webhook/configure');
      setCfg(c);
      setUrl((u) => u || c.targetUrl);
    } catch (e) { setS(bad(e)); }
  };
  const loadDels = async (st = status) => {
    try {
      const d = await call('GET', '/webhook/deliveries' + qs({ status: st, limit: 50 }));
      setDels(d.deliveries);
    } catch (e) { setS(bad(e)); }
  };
  useEffect(() => { loadCfg(); loadDels(); }, []);
  const configure = async (ev) => {
    ev.preventDefault();
    try {
      // What configure sets every time (format, filters) is sent back as it
      // is, so configuring from here changes only what the form edits.
      const body = { targetUrl: url.trim() };
      if (cfg) { body.eventFormat = cfg.eventFormat; body.filters = cfg.filters; }
      const typed = hdrs.filter((h) => h.name.trim() !== '' || h.value !== '');
      if (typed.length > 0) body.authHeaders = Object.fromEntries(typed.map((h) => [h.name.trim(), h.value]));
      else if (clearHdrs) body.authHeaders = {};
      const r = await call('POST', '/webhook/configure', body);
      setS(ok(r.message + ': the secret was POSTed to the URL; activate with it below.'));
      setHdrs([]); setClearHdrs(false);
      loadCfg();
    } catch (e) { setS(bad(e)); }
  };
  const activate = async (ev) => {
    ev.preventDefault();
    try {
      const r = await call('POST', '/webhook/activate', { secret: secret.trim() });
      setS(ok(r.message));
      setSecret('');
      loadCfg(); loadDels();
    } catch (e) { setS(bad(e)); }
  };
  const sendTest = async () => {
    try {
      const r = await call('POST', '/webhook/test');
      setS(ok(`${r.message}: ${r.id}`));
      loadDels();
    } catch (e) { setS(bad(e)); }
  };
  const replay = async (id) => {
    try {
      const r = await call('POST', `/webhook/deliveries/${encodeURIComponent(id)}/retry`);
      setS(ok(`${r.message}: ${id}`));
      loadDels();
    } catch (e) { setS(bad(e)); }
  };
  return (
    <>
      <h1>Webhook</h1>
      <Status s={s} />
      <section class="panel" aria-labelledby="wh-cfg">
        <h2 id="wh-cfg">Configuration</h2>
        {cfg && <p>Target: <span class="mono" id="wh-target">{cfg.targetUrl || 'none configured'}</span> · <span id="wh-activated" class={'badge ' + (cfg.activated ? 'b-ok' : 'b-warn')}>{cfg.activated ? 'Activated' : 'Not activated'}</span> · environment {cfg.env}</p>}
        <form onSubmit={configure}>
        <div class="row">
          <label style={{ flex: '1 1 18rem' }}>Target URL<input id="wh-url" type="url" required value={url} onInput={(e) => setUrl(e.currentTarget.value)} /></label>
        </div>
        <fieldset id="wh-auth">
          <legend>Auth headers</legend>
          <p>Headers the receiver authenticates contrack with, sent on every delivery (an API key such as <span class="mono">X-API-Key</span>,
            or <span class="mono">Authorization: Bearer …</span> / <span class="mono">Basic …</span>); stored encrypted, shown masked.</p>
          {cfg && <p>Stored: <span class="mono" id="wh-auth-stored">{Object.keys(cfg.authHeaders || {}).length === 0 ? 'none' :
            Object.entries(cfg.authHeaders).map(([n, v]) => `${n}: ${v}`).join(', ')}</span></p>}
          {hdrs.map((h, i) => (
            <div class="row" key={i}>
              <label>Header name<input class="wh-auth-name" autocomplete="off" value={h.name}
                onInput={(e) => { const v = e.currentTarget.value; setHdrs((hs) => hs.map((x, j) => (j === i ? { ...x, name: v } : x))); }} /></label>
              <label style={{ flex: '1 1 14rem' }}>Value<input class="wh-auth-value" type="password" autocomplete="off" value={h.value}
                onInput={(e) => { const v = e.currentTarget.value; setHdrs((hs) => hs.map((x, j) => (j === i ? { ...x, value: v } : x))); }} /></label>
              <button type="button" class="secondary" aria-label={'Remove header ' + (i + 1)} onClick={() => setHdrs((hs) => hs.filter((_, j) => j !== i))}>Remove</button>
            </div>
          ))}
          <div class="row">
            <button type="button" class="secondary" id="wh-auth-add" disabled={hdrs.length >= MAX_AUTH_HEADERS}
              onClick={() => { setHdrs((hs) => [...hs, { name: '', value: '' }]); setClearHdrs(false); }}>Add header</button>
            <label class="check"><span><input type="checkbox" id="wh-auth-clear" checked={clearHdrs} disabled={hdrs.length > 0}
              onChange={(e) => setClearHdrs(e.currentTarget.checked)} /> Remove the stored headers</span></label>
          </div>
          <p class="muted">Headers typed here replace the stored ones when you configure; with none typed, the stored ones are kept
            (moving the target to another host then needs them typed again). At most {MAX_AUTH_HEADERS}.</p>
        </fieldset>
        <button type="submit" id="wh-configure">Configure</button>
        </form>
        <p class="muted">Configuring (or re-configuring) deactivates the webhook and POSTs a new secret to the URL; its event format and filters stay as they are.</p>
        <form class="row" onSubmit={activate}>
          <label style={{ flex: '1 1 18rem' }}>Secret received at the URL<input id="wh-secret" type="password" autocomplete="off" required value={secret} onInput={(e) => setSecret(e.currentTarget.value)} /></label>
          <button type="submit">Activate</button>
        </form>
      </section>
      <section aria-labelledby="wh-del">
        <h2 id="wh-del">Recent deliveries</h2>
        <form class="row" onSubmit={(e) => { e.preventDefault(); loadDels(); }}>
          <label>Status
            <select id="d-status" value={status} onChange={(e) => { setStatus(e.currentTarget.value); loadDels(e.currentTarget.value); }}>
              <option value="">Any</option><option>PENDING</option><option>FAILED</option><option>DELIVERED</option><option>DEAD</option>
            </select>
          </label>
          <button class="secondary" type="submit">Refresh</button>
        </form>
        {dels === null ? <p>Loading…</p> : dels.length === 0 ? <p class="muted" id="no-deliveries">No deliveries.</p> : (
          <div class="tablewrap">
            <table class="cards-sm" id="deliveries">
              <caption>Newest first</caption>
              <thead><tr><th scope="col">Created</th><th scope="col">Subscription</th><th scope="col">Status</th><th scope="col">Attempts</th>
                <th scope="col">Last HTTP</th><th scope="col">Next attempt</th><th scope="col">Events</th><th scope="col">Id</th><th scope="col"><span class="skip-label">Actions</span></th></tr></thead>
              <tbody>
                {dels.map((d) => (
                  <tr key={d.id} data-id={d.id}>
                    <td data-label="Created">{when(d.createdAt)}</td>
                    <td data-label="Subscription">{d.test ? <span class="badge b-muted d-test">Test</span> : d.subscriptionReference}</td>
                    <td data-label="Status" class="d-status"><Badge v={d.status} /></td>
                    <td data-label="Attempts">{d.attempts}</td>
                    <td data-label="Last HTTP">{d.lastHttpCode ?? '—'}{d.lastError ? <span class="muted"> {d.lastError}</span> : ''}</td>
                    <td data-label="Next attempt">{when(d.nextAttemptAt)}</td>
                    <td data-label="Events">{d.eventCount}</td>
                    <td data-label="Id" class="mono">{d.id.slice(0, 8)}</td>
                    <td data-label="Actions">{d.status === 'DEAD' &&
                      <button type="button" class="replay" onClick={() => replay(d.id)} aria-label={'Replay delivery ' + d.id}>Replay</button>}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
      <section class="panel" aria-labelledby="wh-test">
        <h2 id="wh-test">Test delivery</h2>
        <p>Sends a signed <span class="mono">{'{"type":"webhook.test",…}'}</span> message to the activated webhook, the way every delivery goes
          (same signature, retries and circuit breaker). It appears in the list above, marked Test. At most 5 a minute.</p>
        <button type="button" id="wh-test-send" onClick={sendTest} disabled={!(cfg && cfg.activated)}>Send test delivery</button>
        {cfg && !cfg.activated && <p class="muted">Activate the webhook first.</p>}
      </section>
    </>
  );
}

// ---------- carriers ----------

const SERIES = [
  { key: 'success', name: 'Success', color: '#146c2e' },
  { key: 'noData', name: 'No data', color: '#8a93a0' },
  { key: 'errors', name: 'Errors', color: '#b3261e' },
];
const LATENCY = [
  { key: 'avgLatencyMs', name: 'Average', color: '#0b57d0' },
  { key: 'p95LatencyMs', name: '95th percentile', color: '#8a4b00' },
];

// duration reads seconds as 45 s, 3.5 min or 2.1 h.
function duration(sec) {
  if (sec < 90) return `${Math.round(sec * 10) / 10} s`;
  if (sec < 5400) return `${Math.round(sec / 6) / 10} min`;
  return `${Math.round(sec / 360) / 10} h`;
}

// HealthResult shows a health check's answer. The check asks the carrier for
// a test container it does not know, so OK comes with the carrier's 200 or
// its 404 "not found": the 404 is said to be that, never a bare "OK" beside
// "HTTP 404"; any other status is a failure, in red.
function HealthResult({ h }) {
  if (h.status === '…') return <span class="muted">checking…</span>;
  const code = h.httpCode || 0;
  if (h.status !== 'OK') {
    return <span class="health-result failed"><span class="badge b-err">{h.status}</span>{code ? ' HTTP ' + code : ''}
      <span class="muted"> · {h.status === 'UNAUTHORIZED' ? 'the carrier refused the stored credentials' : 'the carrier could not be checked'}</span></span>;
  }
  return (
    <span class="health-result passed"><span class="badge b-ok">OK</span>{' '}
      {code === 404 ? <span class="muted">the carrier accepted the credentials and answered HTTP 404 (not found) for the check's test container, as expected</span> :
        <span class="muted">the carrier accepted the credentials{code ? ` (HTTP ${code})` : ''}</span>}
    </span>
  );
}

function Carriers() {
  const [creds, setCreds] = useState(null);
  const [health, setHealth] = useState({});
  const [win, setWin] = useState('7');
  const [metrics, setMetrics] = useState(null);
  const [capacity, setCapacity] = useState(null);
  const [s, setS] = useState(null);
  const [form, setForm] = useState({ scac: '', kind: 'apiKey', apiKey: '', clientId: '', clientSecret: '' });
  const loadCapacity = async () => {
    try { setCapacity((await call('GET', '/account')).pollingCapacity || []); } catch (e) { setS(bad(e)); }
  };
  const loadCreds = async () => {
    try { setCreds(await call('GET', '/carrier/credentials')); } catch (e) { setS(bad(e)); }
  };
  const loadMetrics = async (w = win) => {
    try { setMetrics(await call('GET', '/carrier/metrics' + qs({ window: w }))); } catch (e) { setS(bad(e)); }
  };
  useEffect(() => { loadCreds(); loadMetrics(); loadCapacity(); }, []);
  const check = async (scac) => {
    setHealth({ ...health, [scac]: { status: '…' } });
    try {
      const r = await call('POST', '/carrier/health-check', { scacCode: scac });
      setHealth((h) => ({ ...h, [scac]: r }));
    } catch (e) {
      setHealth((h) => ({ ...h, [scac]: null }));
      setS(bad(e));
    }
  };
  const save = async (ev) => {
    ev.preventDefault();
    const scac = form.scac.trim().toUpperCase();
    const fields = form.kind === 'apiKey' ? { apiKey: form.apiKey } : { clientId: form.clientId, clientSecret: form.clientSecret };
    try {
      const r = await call('POST', '/carrier/credentials', { [scac]: fields });
      setS(ok(`${r.message}: ${scac}`));
      setForm({ ...form, apiKey: '', clientId: '', clientSecret: '' });
      loadCreds();
    } catch (e) { setS(bad(e)); }
  };
  const clear = async (scac) => {
    try {
      const r = await call('DELETE', '/carrier/credentials', { carriers: [scac] });
      setS(ok(`${r.message}: ${scac}`));
      loadCreds();
    } catch (e) { setS(bad(e)); }
  };
  const setF = (k) => (e) => setForm({ ...form, [k]: e.currentTarget.value });
  const entries = creds ? Object.entries(creds.carrierCredentials || {}).sort() : [];
  const rows = metrics ? metrics.carriers : [];
  return (
    <>
      <h1>Carriers</h1>
      <Status s={s} />
      <section aria-labelledby="cr-h">
        <h2 id="cr-h">Credentials{creds && <span class="muted"> ({creds.env})</span>}</h2>
        {creds === null ? <p>Loading…</p> : entries.length === 0 ? <p class="muted">No credentials stored.</p> : (
          <div class="tablewrap">
            <table class="cards-sm" id="credentials">
              <caption>Secrets are masked by the server</caption>
              <thead><tr><th scope="col">Carrier</th><th scope="col">Fields</th><th scope="col">Health</th><th scope="col"><span class="skip-label">Actions</span></th></tr></thead>
              <tbody>
                {entries.map(([scac, f]) => (
                  <tr key={scac}>
                    <td data-label="Carrier"><strong>{scac}</strong></td>
                    <td data-label="Fields" class="mono">{Object.entries(f).map(([k, v]) => `${k}: ${v}`).join(' · ')}</td>
                    <td data-label="Health" class="health" data-scac={scac}>{health[scac] ? <HealthResult h={health[scac]} /> : '—'}</td>
                    <td data-label="Actions"><div class="row">
                      <button type="button" class="secondary" onClick={() => check(scac)} aria-label={'Health check ' + scac}>Health check</button>
                      <button type="button" class="danger" onClick={() => clear(scac)} aria-label={'Clear credentials of ' + scac}>Clear</button>
                    </div></td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        <form class="row panel" onSubmit={save} aria-label="Store carrier credentials">
          <label>Carrier SCAC<input id="k-scac" required maxLength={4} size={6} value={form.scac} onInput={setF('scac')} /></label>
          <label>Kind
            <select id="k-kind" value={form.kind} onChange={setF('kind')}>
              <option value="apiKey">API key</option><option value="client">Client id and secret</option>
            </select>
          </label>
          {form.kind === 'apiKey' ?
            <label>API key<input id="k-apikey" type="password" autocomplete="off" required value={form.apiKey} onInput={setF('apiKey')} /></label> : <>
              <label>Client id<input id="k-clientid" required value={form.clientId} onInput={setF('clientId')} /></label>
              <label>Client secret<input id="k-clientsecret" type="password" autocomplete="off" required value={form.clientSecret} onInput={setF('clientSecret')} /></label>
            </>}
          <button type="submit">Store</button>
        </form>
      </section>
      <section aria-labelledby="cap-h">
        <h2 id="cap-h">Polling capacity</h2>
        <p class="muted">Your plan's poll rate per carrier against what your trackings need. When the achieved interval is above the configured one,
          every tracking of that carrier is polled less often alike (new subscriptions still go first); a plan with a higher carrier rate shortens it.</p>
        <form class="row" onSubmit={(e) => { e.preventDefault(); loadCapacity(); }}>
          <button class="secondary" type="submit">Refresh capacity</button>
        </form>
        {capacity === null ? <p>Loading…</p> : capacity.length === 0 ? <p class="muted" id="no-capacity">No carrier polled yet.</p> : (
          <div class="tablewrap">
            <table class="cards-sm" id="capacity">
              <caption>Per carrier, updated every few seconds</caption>
              <thead><tr><th scope="col">Carrier</th><th scope="col">Trackings</th><th scope="col">Awaiting first poll</th>
                <th scope="col">Interval achieved (p50 / p95)</th><th scope="col">Configured interval</th><th scope="col">Polls/s used of allowed</th><th scope="col">Updated</th></tr></thead>
              <tbody>{capacity.map((c) => {
                const stretched = c.intervalP50Seconds !== null && c.intervalP50Seconds > c.configuredIntervalSeconds * 1.2;
                return (
                  <tr key={c.scacCode}>
                    <td data-label="Carrier"><strong>{c.scacCode}</strong></td>
                    <td data-label="Trackings">{c.trackings.toLocaleString()}</td>
                    <td data-label="Awaiting first poll">{c.awaitingFirstPoll.toLocaleString()}</td>
                    <td data-label="Interval achieved (p50 / p95)">{c.intervalP50Seconds === null ? '—' : `${duration(c.intervalP50Seconds)} / ${duration(c.intervalP95Seconds)}`}
                      {stretched && <> <Badge v="STRETCHED" /></>}</td>
                    <td data-label="Configured interval">{duration(c.configuredIntervalSeconds)}</td>
                    <td data-label="Polls/s used of allowed">{c.pollsPerSecond.toFixed(1)} of {c.allowedPollsPerSecond}</td>
                    <td data-label="Updated">{when(c.updatedAt)}</td>
                  </tr>
                );
              })}</tbody>
            </table>
          </div>
        )}
      </section>
      <section aria-labelledby="m-h">
        <h2 id="m-h">Polling over the last {metrics ? metrics.window : win} day(s)</h2>
        <form class="row" onSubmit={(e) => { e.preventDefault(); loadMetrics(); }}>
          <label>Window
            <select id="m-window" value={win} onChange={(e) => { setWin(e.currentTarget.value); loadMetrics(e.currentTarget.value); }}>
              {['1', '7', '30', '90'].map((w) => <option key={w} value={w}>{w} day{w === '1' ? '' : 's'}</option>)}
            </select>
          </label>
          <button class="secondary" type="submit">Refresh</button>
        </form>
        {metrics === null ? <p>Loading…</p> : rows.length === 0 ? <p class="muted" id="no-metrics">No polls in this window.</p> : (
          <div class="cards">
            <div>
              <h3>Outcomes per carrier</h3>
              <BarChart id="outcomes" title="Poll outcomes per carrier" stacked
                desc={rows.map((r) => `${r.scacCode}: ${r.success} success, ${r.noData} no data, ${r.errors} errors`).join('; ')}
                series={SERIES} items={rows.map((r) => ({ label: r.scacCode, values: r }))} />
            </div>
            <div>
              <h3>Poll latency</h3>
              <BarChart id="latency" title="Poll latency per carrier in milliseconds" stacked={false} unit=" ms"
                desc={rows.map((r) => `${r.scacCode}: average ${Math.round(r.avgLatencyMs)} ms, p95 ${Math.round(r.p95LatencyMs)} ms`).join('; ')}
                series={LATENCY} items={rows.map((r) => ({ label: r.scacCode, values: r }))} />
            </div>
          </div>
        )}
        {rows.length > 0 && (
          <div class="tablewrap">
            <table class="cards-sm" id="metrics">
              <caption>Figures, worst first</caption>
              <thead><tr><th scope="col">Carrier</th><th scope="col">Attempts</th><th scope="col">Success</th><th scope="col">No data</th><th scope="col">Errors</th>
                <th scope="col">Error rate</th><th scope="col">Avg ms</th><th scope="col">p95 ms</th><th scope="col">Last attempt</th></tr></thead>
              <tbody>{rows.map((r) => (
                <tr key={r.scacCode}><td data-label="Carrier">{r.scacCode}</td><td data-label="Attempts">{r.attempts}</td><td data-label="Success">{r.success}</td>
                  <td data-label="No data">{r.noData}</td><td data-label="Errors">{r.errors}</td><td data-label="Error rate">{(r.errorRate * 100).toFixed(1)}%</td>
                  <td data-label="Avg ms">{Math.round(r.avgLatencyMs)}</td><td data-label="p95 ms">{Math.round(r.p95LatencyMs)}</td><td data-label="Last attempt">{when(r.lastAttemptAt)}</td></tr>
              ))}</tbody>
            </table>
          </div>
        )}
        {rows.length > 0 && (
          <div class="tablewrap">
            <table class="cards-sm" id="quality">
              <caption>Data quality: what the carriers' answers needed</caption>
              <thead><tr><th scope="col">Carrier</th><th scope="col">Events read</th><th scope="col">Repaired</th>
                <th scope="col">Refused</th><th scope="col">Latest refusal</th></tr></thead>
              <tbody>{rows.map((r) => {
                const q = r.dataQuality || { eventsRead: 0, repairs: {}, refused: 0 };
                const kinds = Object.entries(q.repairs || {}).sort((a, b) => b[1] - a[1]);
                return (
                  <tr key={r.scacCode}><td data-label="Carrier">{r.scacCode}</td><td data-label="Events read">{q.eventsRead}</td>
                    <td data-label="Repaired">{kinds.length === 0 ? 'none' : kinds.map(([k, n]) => `${k.replaceAll('_', ' ')} ${n}`).join(', ')}</td>
                    <td data-label="Refused">{q.refused}</td><td data-label="Latest refusal">{q.lastRefusal || '—'}</td></tr>
                );
              })}</tbody>
            </table>
          </div>
        )}
      </section>
    </>
  );
}

// ---------- shell ----------

function App() {
  const [account, setAccount] = useState(null);
  const [checking, setChecking] = useState(!!session.key());
  const route = useHash();
  const mainRef = useRef(null);
  useEffect(() => {
    if (!session.key()) return;
    call('GET', '/account').then(setAccount, () => session.clear()).finally(() => setChecking(false));
  }, []);
  useEffect(() => { if (mainRef.current) mainRef.current.focus(); }, [route.split('/')[0]]);
  if (checking) return <p class="boot">Loading the console…</p>;
  if (!account) return <SignIn onSignedIn={(a) => { setAccount(a); if (!route) location.hash = '#/subscriptions'; }} />;
  const [page, ...rest] = route.split('/');
  let body;
  if (page === 'journey' && rest.length) body = <Journey reference={decodeURIComponent(rest.join('/'))} />;
  else if (page === 'webhook') body = <Webhook />;
  else if (page === 'carriers') body = <Carriers />;
  else body = <Subscriptions />;
  const current = page === 'journey' ? 'subscriptions' : (PAGES.some(([p]) => p === page) ? page : 'subscriptions');
  return (
    <>
      <a class="skip" href="#main" onClick={(e) => { e.preventDefault(); mainRef.current.focus(); }}>Skip to content</a>
      <header class="top">
        <span class="brand">contrack</span>
        <nav class="main" aria-label="Console pages"><ul>
          {PAGES.map(([p, name]) => <li key={p}><a href={'#/' + p} aria-current={current === p ? 'page' : undefined}>{name}</a></li>)}
          <li><a href="../docs/">API docs</a></li>
        </ul></nav>
        <span class="who"><span id="account">{account.displayName || account.clientName} · {account.environment}</span>
          <button class="link" type="button" onClick={() => { session.clear(); setAccount(null); }}>Sign out</button></span>
      </header>
      <main id="main" tabIndex={-1} ref={mainRef}>{body}</main>
    </>
  );
}

const root = document.getElementById('app');
root.textContent = ''; // the static "Loading" line; Preact 11 does not replace it
render(<App />, root);
