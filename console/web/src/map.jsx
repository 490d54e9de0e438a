// The journey map: the route (sailed and planned parts), its ports and the
// vessel's latest position, drawn in SVG over Natural Earth land from the
// world-atlas package (land-50m.json, shipped beside the console and read
// from this origin). d3-geo projects; there is no tile server, nothing is
// asked of another origin.
import { geoGraticule10, geoMercator, geoPath } from 'd3-geo';
import { feature } from 'topojson-client';
import { useEffect, useRef, useState } from 'preact/hooks';
import { knots, latLon, when } from './format.js';

// LAND is the TopoJSON file build.mjs copies from world-atlas into dist.
const LAND = 'land-50m.json';
let land = null; // the promise of the land's GeoJSON, read once per page

function loadLand() {
  if (!land) {
    land = fetch(LAND, { credentials: 'same-origin' })
      .then((r) => {
        if (!r.ok) throw new Error(`HTTP ${r.status}`);
        return r.json();
      })
      .then((topo) => feature(topo, topo.objects.land))
      .catch((e) => {
        land = null; // the next map tries again
        throw e;
      });
  }
  return land;
}

const norm = (lon) => ((((lon + 180) % 360) + 360) % 360) - 180;

// centerLongitude is the middle of the shortest arc of longitude holding
// every point: a route across the Pacific is centred on the Pacific, not
// cut in two at the antimeridian.
export function centerLongitude(lons) {
  const s = [...new Set(lons.map(norm))].sort((a, b) => a - b);
  if (s.length === 0) return 0;
  let gap = -1, at = 0;
  for (let i = 0; i < s.length; i++) {
    const next = i + 1 < s.length ? s[i + 1] : s[0] + 360;
    if (next - s[i] > gap) {
      gap = next - s[i];
      at = i;
    }
  }
  const start = s[(at + 1) % s.length];
  const end = s[at] < start ? s[at] + 360 : s[at];
  return norm((start + end) / 2);
}

// frame is the box the map shows, in longitudes relative to the centre:
// every point with a margin, at least 40° by 20° so a short passage still
// shows its coasts, within the latitudes ships sail.
function frame(points, center) {
  let x0 = Infinity, x1 = -Infinity, y0 = Infinity, y1 = -Infinity;
  for (const [lon, lat] of points) {
    const x = norm(lon - center);
    x0 = Math.min(x0, x); x1 = Math.max(x1, x);
    y0 = Math.min(y0, lat); y1 = Math.max(y1, lat);
  }
  const padX = Math.max((x1 - x0) * 0.08, (40 - (x1 - x0)) / 2, 2);
  const padY = Math.max((y1 - y0) * 0.12, (20 - (y1 - y0)) / 2, 2);
  x0 = Math.max(x0 - padX, -180); x1 = Math.min(x1 + padX, 180);
  y0 = Math.max(y0 - padY, -70); y1 = Math.min(y1 + padY, 78);
  return { type: 'MultiPoint', coordinates: [[x0 + center, y0], [x1 + center, y0], [x0 + center, y1], [x1 + center, y1], [center + (x0 + x1) / 2, y0], [center + (x0 + x1) / 2, y1]] };
}

// useWidth follows an element's width, so the map draws in real pixels:
// lines and markers keep their size from a phone to a desktop.
function useWidth(ref) {
  const [w, setW] = useState(0);
  useEffect(() => {
    const el = ref.current;
    if (!el) return undefined;
    const on = () => setW(Math.round(el.getBoundingClientRect().width));
    on();
    const ro = new ResizeObserver(on);
    ro.observe(el);
    return () => ro.disconnect();
  }, []);
  return w;
}

const ROLE = { POL: 'Port of loading', TRANSSHIPMENT: 'Transshipment', POD: 'Port of discharge' };

// JourneyMap draws route (a GeoJSON Feature, MultiLineString, with
// properties.parts and properties.ports) and vessel (its position, if at
// sea). id makes the figure's element ids unique on the page.
export function JourneyMap({ id, route, vessel }) {
  const box = useRef(null);
  const width = useWidth(box);
  const [landShape, setLand] = useState(null);
  const [failed, setFailed] = useState('');
  useEffect(() => {
    loadLand().then(setLand, (e) => setFailed(e.message || String(e)));
  }, []);

  const lines = (route.geometry && route.geometry.coordinates) || [];
  const parts = (route.properties && route.properties.parts) || [];
  const ports = ((route.properties && route.properties.ports) || []).filter((p) => Array.isArray(p.coordinates));
  const pos = vessel && vessel.position;
  const points = [...lines.flat(), ...ports.map((p) => p.coordinates)];
  if (pos) points.push([pos.longitude, pos.latitude]);

  const height = Math.round(Math.min(Math.max(width * 0.56, 240), 560));
  let drawn = null;
  if (width > 0 && points.length > 0) {
    const center = centerLongitude(points.map((p) => p[0]));
    const margin = Math.min(24, width / 16);
    const proj = geoMercator().rotate([-center, 0])
      .fitExtent([[margin, margin], [width - margin, height - margin]], frame(points, center))
      .clipExtent([[0, 0], [width, height]]);
    const path = geoPath(proj);
    const xy = (c) => proj(c) || [-100, -100];
    drawn = { proj, path, xy };
  }

  const props = route.properties || {};
  const pol = ports.find((p) => p.role === 'POL');
  const pod = [...ports].reverse().find((p) => p.role === 'POD');
  const desc = [
    `Sea route${pol ? ' from ' + (pol.name || pol.UNLocationCode) : ''}${pod ? ' to ' + (pod.name || pod.UNLocationCode) : ''}`,
    props.sailedNM !== undefined ? `${Math.round(props.sailedNM).toLocaleString('en')} nautical miles sailed, ${Math.round(props.remainingNM || 0).toLocaleString('en')} to go` : '',
    ports.length ? 'ports: ' + ports.map((p) => `${p.name || p.UNLocationCode} (${ROLE[p.role] || p.role})`).join(', ') : '',
    pos ? `${vessel.name || 'the vessel'} at ${latLon(pos.latitude, pos.longitude)} on ${when(pos.at)}` : 'no vessel position: the vessel is not at sea with the container',
  ].filter(Boolean).join('; ') + '.';

  return (
    <figure class="map" data-map={id}>
      <div class="map-box" ref={box} style={{ height: height + 'px' }}>
        {drawn && (
          <svg width={width} height={height} viewBox={`0 0 ${width} ${height}`} role="img" aria-labelledby={`${id}-t ${id}-d`}>
            <title id={`${id}-t`}>Route map</title>
            <desc id={`${id}-d`}>{desc}</desc>
            <rect class="sea" width={width} height={height} />
            <path class="graticule" d={drawn.path(geoGraticule10())} />
            {landShape && <path class="land" d={drawn.path(landShape)} />}
            {lines.map((c, i) => {
              const state = (parts[i] && parts[i].state) === 'SAILED' ? 'sailed' : 'planned';
              return <path key={i} class={'route route-' + state} data-leg={parts[i] ? parts[i].leg : ''}
                d={drawn.path({ type: 'LineString', coordinates: c })} />;
            })}
            {ports.map((p, i) => {
              const [x, y] = drawn.xy(p.coordinates);
              return (
                <g key={i} class={'port port-' + (p.role || '').toLowerCase()} transform={`translate(${x.toFixed(1)},${y.toFixed(1)})`}>
                  <title>{`${p.name || p.UNLocationCode} (${p.UNLocationCode}), ${ROLE[p.role] || p.role}`}</title>
                  {p.role === 'TRANSSHIPMENT' ? <rect x="-5" y="-5" width="10" height="10" transform="rotate(45)" /> : <circle r="6" />}
                  <text x="9" y="-8">{p.UNLocationCode}</text>
                </g>
              );
            })}
            {pos && (() => {
              const [x, y] = drawn.xy([pos.longitude, pos.latitude]);
              return (
                <g class="vessel" data-x={x.toFixed(1)} data-y={y.toFixed(1)} transform={`translate(${x.toFixed(1)},${y.toFixed(1)})`}>
                  <title>{`${vessel.name || 'Vessel'}${vessel.imo ? ' (IMO ' + vessel.imo + ')' : ''}: ${latLon(pos.latitude, pos.longitude)}, ${when(pos.at)}, ${knots(pos.speedKnots)}, course ${Math.round(pos.course)}°`}</title>
                  <circle class="halo" r="13" />
                  <path d="M0,-11 L6.5,8 L0,4 L-6.5,8 Z" transform={`rotate(${Number(pos.course) || 0})`} />
                </g>
              );
            })()}
          </svg>
        )}
        {failed && <p class="map-failed muted">The map's land could not be loaded ({failed}); the route is drawn without it.</p>}
      </div>
      <figcaption class="map-legend">
        <span><svg width="28" height="10" aria-hidden="true"><line class="route route-sailed" x1="1" y1="5" x2="27" y2="5" /></svg>Sailed</span>
        <span><svg width="28" height="10" aria-hidden="true"><line class="route route-planned" x1="1" y1="5" x2="27" y2="5" /></svg>Planned</span>
        <span><svg width="14" height="14" aria-hidden="true"><g class="port"><circle cx="7" cy="7" r="5" /></g></svg>Port (POL, POD)</span>
        {ports.some((p) => p.role === 'TRANSSHIPMENT') &&
          <span><svg width="14" height="14" aria-hidden="true"><g class="port"><rect x="3" y="3" width="8" height="8" transform="rotate(45 7 7)" /></g></svg>Transshipment</span>}
        {pos && <span><svg width="16" height="16" aria-hidden="true"><g class="vessel" transform="translate(8,8) scale(.65)"><path d="M0,-11 L6.5,8 L0,4 L-6.5,8 Z" /></g></svg>Vessel, pointing along its course</span>}
      </figcaption>
    </figure>
  );
}
