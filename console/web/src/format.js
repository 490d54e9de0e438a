// Display helpers shared by the console pages.

// when formats an ISO date-time in UTC, the zone named, so every viewer
// reads the same instant.
export function when(s) {
  if (!s) return '—';
  const d = new Date(s);
  if (isNaN(d)) return String(s);
  return d.toISOString().slice(0, 16).replace('T', ' ') + ' UTC';
}

export const isDateLike = (v) => typeof v === 'string' && /^\d{4}-\d{2}-\d{2}T/.test(v);

const equipmentCodes = {
  LOAD: 'Loaded on vessel', DISC: 'Discharged from vessel', GTIN: 'Gate in', GTOT: 'Gate out',
  STUF: 'Stuffed', STRP: 'Stripped', PICK: 'Picked up', DROP: 'Dropped off', INSP: 'Inspected',
  RSEA: 'Resealed', RMVD: 'Removed',
};
const transportCodes = { ARRI: 'Vessel arrival', DEPA: 'Vessel departure' };
export const classifiers = { ACT: 'Actual', EST: 'Estimated', PLN: 'Planned' };

// A load or discharge of a rail, truck or barge leg names that mode, not a vessel.
const legModes = { RAIL: 'rail', TRUCK: 'truck', BARGE: 'barge' };
const modeOf = (e) => (e && e.transportCall && e.transportCall.modeOfTransport) || '';

export function eventTitle(e) {
  const mode = legModes[modeOf(e)];
  if (mode && e.equipmentEventTypeCode === 'LOAD') return `Loaded on ${mode}`;
  if (mode && e.equipmentEventTypeCode === 'DISC') return `Discharged from ${mode}`;
  if (e.equipmentEventTypeCode) return equipmentCodes[e.equipmentEventTypeCode] || e.equipmentEventTypeCode;
  if (e.transportEventTypeCode) return transportCodes[e.transportEventTypeCode] || e.transportEventTypeCode;
  return e.eventType || 'Event';
}

// locationOf finds the place of a DCSA event or a derived milestone, whichever
// shape it has.
export function locationOf(e) {
  if (!e) return '';
  const l = e.eventLocation || (e.transportCall && e.transportCall.location) || e.location;
  const code = e.UNLocationCode || (l && l.UNLocationCode) || (e.transportCall && e.transportCall.UNLocationCode);
  const name = (l && l.locationName) || e.locationName;
  if (code && name) return `${name} (${code})`;
  return code || name || '';
}

// vesselOf is the vessel and voyage of an event's transport call; a rail or
// road leg's train or trip number is no vessel's voyage.
export function vesselOf(e) {
  const tc = e && e.transportCall;
  if (!tc || tc.modeOfTransport === 'RAIL' || tc.modeOfTransport === 'TRUCK') return null;
  const v = tc.vessel || {};
  const voyage = tc.carrierVoyageNumber || tc.carrierExportVoyageNumber || tc.exportVoyageNumber ||
    tc.carrierImportVoyageNumber || tc.importVoyageNumber || '';
  if (!v.vesselName && !v.vesselIMONumber && !voyage) return null;
  return { name: v.vesselName || '', imo: v.vesselIMONumber || '', voyage };
}

// label turns ENUM_LIKE or camelCase names into words.
export function label(s) {
  if (!s) return '';
  if (/^[A-Z0-9_]+$/.test(s)) return s.replace(/_/g, ' ');
  return s.replace(/([a-z])([A-Z])/g, '$1 $2').replace(/^./, (c) => c.toUpperCase());
}

// latLon formats a position as degrees with hemispheres: 5.91° N, 87.33° E.
export function latLon(lat, lon) {
  const f = (v, pos, neg) => `${Math.abs(v).toFixed(2)}° ${v >= 0 ? pos : neg}`;
  return `${f(lat, 'N', 'S')}, ${f(lon, 'E', 'W')}`;
}

// nm formats nautical miles.
export const nm = (v) => `${Math.round(v).toLocaleString('en')} nm`;

// knots formats a speed over ground to a tenth of a knot.
export const knots = (v) => `${(Math.round(Number(v) * 10) / 10).toLocaleString('en')} kn`;
