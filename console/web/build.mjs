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

const pkg = JSON.parse(readFileSync('node_modules/preact/package.json', 'utf8'));
writeFileSync(out + 'THIRD_PARTY_LICENSES.txt',
  `The bundles console.js and docs.js include Preact ${pkg.version} (npm package "preact", ${pkg.license} licence):\n\n` +
  readFileSync('node_modules/preact/LICENSE', 'utf8'));
