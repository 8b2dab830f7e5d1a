/** Which certificate authorities a probe trusts: the system's, plus an optional extra CA bundle. */
import { rootCertificates } from "node:tls"

/** The `ca` option for node's TLS: undefined keeps node's default roots; with extra CAs, both. */
export const trustedCas = (extraCa: string | undefined): Array<string> | undefined =>
  extraCa === undefined ? undefined : [...rootCertificates, extraCa]
