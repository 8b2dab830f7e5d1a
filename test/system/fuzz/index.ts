export { fuzzPassed, runFuzz } from "./runFuzz.js"
export type { FuzzFailure, FuzzOptions, FuzzReport } from "./runFuzz.js"
