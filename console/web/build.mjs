// Builds the console and the API docs viewer into ../dist (committed, so
// `make run` needs no Node). Run by `make console`.
import * as esbuild from 'esbuild';
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';

const out = new URL('../dist/', import.meta.url).pathname;
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });

await esbuild.build({
  entryPoints: { console: 'src/console.jsx', docs: 'src/docs.jsx' },
  bundle: true,
  minify: true,
  format: 'esm',
  target: ['es2020'],
  jsx: 'automatic',
  jsxImportSource: 'preact',
  // Licences go to THIRD_PARTY_LICENSES.txt, not into the bundles.
  legalComments: 'none',
  outdir: out,
  logLevel: 'info',
});
for (const f of ['index.html', 'docs.html', 'console.css']) copyFileSync('src/' + f, out + f);
// The journey map's land: Natural Earth 1:50m in TopoJSON, read by the map
// from this origin (not bundled: only the journey page needs it).
copyFileSync('node_modules/world-atlas/land-50m.json', out + 'land-50m.json');

// Every package whose code or data ships in dist, with its licence.
const shipped = [
  ['preact', 'console.js and docs.js'],
  ['d3-geo', 'console.js (the journey map\'s projection)'],
  ['d3-array', 'console.js (used by d3-geo)'],
  ['topojson-client', 'console.js (reads the map\'s TopoJSON)'],
  ['world-atlas', 'land-50m.json (the map\'s land, from Natural Earth, which is in the public domain)'],
];
writeFileSync(out + 'THIRD_PARTY_LICENSES.txt', shipped.map(([name, where]) => {
  const pkg = JSON.parse(readFileSync(`node_modules/${name}/package.json`, 'utf8'));
  return `${name} ${pkg.version} (npm package "${name}", ${pkg.license} licence), in ${where}:\n\n` +
    readFileSync(`node_modules/${name}/LICENSE`, 'utf8').trim() + '\n';
}).join('\n' + '-'.repeat(72) + '\n\n'));
