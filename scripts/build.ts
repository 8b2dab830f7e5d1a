/**
 * Builds the library (`npm run build`): tsc with tsconfig.build.json compiles src/ and probes/
 * to ES modules with their .d.ts under dist/src and dist/probes. The root directory is the
 * repository's, so the layout under dist/ is the sources' and whatever a module reads relative
 * to itself is found beside it once copied here:
 *
 * - dist/migrations: `persistence/Migrations` reads `../../migrations`;
 * - dist/src/web/admin/app: `web/admin/AdminBundle` bundles the dashboard's .tsx sources with
 *   esbuild when the api role starts. They import `../../../api/Api.js` and the like, which under
 *   dist/ are the compiled modules, so esbuild bundles those;
 * - dist/package.json: tsc copies it because probes/version.ts imports it (the probe's version).
 *
 * It removes only what it writes, so `dist/probe.mjs` (`npm run build:probe`) stays.
 */
import { execFileSync } from "node:child_process"
import { cpSync, rmSync } from "node:fs"
import { dirname, join, resolve } from "node:path"
import { fileURLToPath } from "node:url"

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..")
const dist = join(root, "dist")

for (const written of ["src", "probes", "migrations", "package.json"]) {
  rmSync(join(dist, written), { recursive: true, force: true })
}
execFileSync(process.execPath, [join(root, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.build.json"], {
  cwd: root,
  stdio: "inherit"
})
cpSync(join(root, "migrations"), join(dist, "migrations"), { recursive: true })
// The dashboard's sources without its tsconfig.json, which extends a file the package lacks.
cpSync(join(root, "src/web/admin/app"), join(dist, "src/web/admin/app"), {
  recursive: true,
  filter: (source) => !source.endsWith("tsconfig.json")
})
console.log("dist/: src, probes, migrations")
