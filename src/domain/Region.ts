/**
 * A probe region name such as `eu-west`: what a probe agent serves (PROBE_REGION) and what a
 * monitor may be limited to. It names a Redis consumer group too, so it stays short and plain.
 * No imports: the probe agent reads it without the service's code.
 */
export const regionPattern = /^[a-z0-9][a-z0-9_-]{0,62}$/
