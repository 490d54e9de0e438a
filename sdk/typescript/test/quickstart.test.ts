import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { test } from "node:test";

const url = process.env.CONTRACK_SDK_TEST_URL;
const bin = process.env.CONTRACK_SDK_TEST_BIN;
const skip = !url || !bin ? "CONTRACK_SDK_TEST_URL and CONTRACK_SDK_TEST_BIN are not set: make sdk-test runs this against a real contrack all" : false;

// The README's quick start runs as written: compiled as the README says
// (importing the package by its name, which resolves to this folder's
// build), against the server, with a new key.
test("the README's quick start runs as written", { skip }, () => {
  const readme = readFileSync("README.md", "utf8");
  const code = readme.split("## Quick start")[1]?.split("```ts\n")[1]?.split("```")[0];
  assert.ok(code, "README.md has no ts block in its Quick start");
  execFileSync("node_modules/.bin/tsc", ["-p", "tsconfig.json"], { stdio: "pipe" }); // dist/, what "@contrack/sdk" resolves to
  mkdirSync("build/quickstart", { recursive: true });
  writeFileSync("build/quickstart/quickstart.ts", code);
  execFileSync("node_modules/.bin/tsc", ["--module", "nodenext", "--target", "es2022", "--skipLibCheck", "build/quickstart/quickstart.ts"], { stdio: "pipe" });
  const key = execFileSync(bin!, ["admin", "create-key", "--client", "sdk-ts-qs-" + Date.now(), "--env", "sandbox"], { encoding: "utf8" })
    .trim()
    .split("\n")
    .pop()!;
  const out = execFileSync("node", ["build/quickstart/quickstart.js"], {
    env: { ...process.env, CONTRACK_URL: url, CONTRACK_API_KEY: key },
    encoding: "utf8",
    timeout: 120_000,
  });
  assert.match(out, /quickstart-\d+ /, "printed no subscription");
  assert.match(out, /EQUIPMENT|TRANSPORT/, "printed no event");
});
