/**
 * The secrets some operations need to succeed, which the OpenAPI document cannot give: which
 * operations need which, and the tokens found in the mail sent to the fuzzer's subscribers.
 */

/** The fuzzer's subscribers: the only addresses it subscribes, and the only ones it deletes. */
export const isFuzzAddress = (email: string) => /^fuzz-.*@example\.com$/.test(email)

/**
 * Operations whose success needs a secret: an administrator's password, a token sent by mail to
 * a subscriber; or one the fuzzer never holds: a session (its admin requests use its API key,
 * which one's own account refuses), a member other than the first owner (members join only by
 * accepting a mailed invitation, and the last owner cannot be removed), the embedded database
 * (the bed runs on PostgreSQL, where a backup is pg_dump's: the service answers 409).
 */
export const secretOf: Record<string, "signIn" | "mailbox" | "session" | "invitation" | "embedded"> = {
  "operations.backup": "embedded",
  "auth.signIn": "signIn",
  "subscriptions.verify": "mailbox",
  "subscriptions.unsubscribe": "mailbox",
  "subscriptions.oneClickUnsubscribe": "mailbox",
  "auth.changePassword": "session",
  "auth.listSessions": "session",
  "auth.revokeSession": "session",
  "auth.inspectInvitation": "invitation",
  "auth.acceptInvitation": "invitation",
  "team.removeUser": "invitation"
}

/** The tokens in the fuzzer's mail: confirmation links, and unsubscribe links with their address. */
export const tokensIn = (mails: ReadonlyArray<string>) => {
  const verify = new Set<string>()
  const unsubscribe = new Map<string, { email: string; token: string }>()
  for (const text of mails) {
    for (const match of text.matchAll(/\/subscribe\/verify\/([^\s"<>]+)/g)) verify.add(decodeURIComponent(match[1]!))
    for (const match of text.matchAll(/\/unsubscribe\?email=([^&\s]+)&token=([^\s"<>&]+)/g)) {
      const pair = { email: decodeURIComponent(match[1]!), token: decodeURIComponent(match[2]!) }
      unsubscribe.set(`${pair.email} ${pair.token}`, pair)
    }
  }
  return { verify: [...verify], unsubscribe: [...unsubscribe.values()] }
}
