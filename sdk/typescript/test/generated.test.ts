import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";

// src/schema.ts is what the pinned openapi-typescript (package-lock.json)
// makes of docs/openapi.json now: the "generate" script, into a temporary
// file (`make sdk` rewrites it).
test("the generated schema matches a fresh generation", () => {
  const pkg = JSON.parse(readFileSync("package.json", "utf8")) as { scripts: Record<string, string> };
  const args = pkg.scripts.generate.split(/\s+/);
  assert.equal(args[0], "openapi-typescript");
  const out = join(mkdtempSync(join(tmpdir(), "contrack-ts-")), "schema.ts");
  const at = args.indexOf("--output");
  assert.ok(at > 0, "the generate script names its --output");
  const committedPath = args[at + 1];
  args[at + 1] = out;
  execFileSync("node_modules/.bin/openapi-typescript", args.slice(1), { stdio: "pipe" });
  assert.ok(
    readFileSync(out, "utf8") === readFileSync(committedPath, "utf8"),
    `${committedPath} differs from a fresh generation from ${args[1]}: run make sdk`,
  );
});
