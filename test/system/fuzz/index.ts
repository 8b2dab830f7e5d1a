export type { FuzzFailure, FuzzOptions, FuzzReport } from "./runFuzz.js"
export { fuzzPassed, runFuzz } from "./runFuzz.js"
