/**
 * The probe's version, as its heartbeats report it: package.json's `version`, read by tsx from
 * the clone and inlined by esbuild into `dist/probe.mjs` (the bundle needs no package.json).
 */
import packageJson from "../package.json" with { type: "json" }

export const probeVersion: string = packageJson.version
