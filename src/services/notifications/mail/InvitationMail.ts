/**
 * The mail of an invitation to the team, as a pure function: plain English (the dashboard is in
 * English), naming the organization, the role and who invited, with the link that accepts it.
 * The token goes in the link's fragment, so it stays out of server logs and Referer headers.
 */
import type { Role } from "../../../domain/Role.js"
import type { MailMessage } from "./Mailer.js"

/** How long an invitation link works. */
export const invitationHours = 72

/** The dashboard page an invitation link opens; the token is its fragment. */
export const invitationUrl = (publicUrl: string, token: string) => `${publicUrl}/admin/invitation#${token}`

const escapeHtml = (text: string) =>
  text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&#39;")

/** Subject lines are single-line: user text must not end the header. */
const oneLine = (text: string) => text.replace(/[\r\n\t]+/g, " ").trim()

const roleWords: Record<Role, string> = {
  owner: "owner (everything, including the team and the organization's settings)",
  admin: "admin (everything but the team and the organization's settings)",
  editor: "editor (incidents, maintenance, component statuses and templates)",
  viewer: "viewer (reads the admin side, changes nothing)"
}

export const invitationMail = (options: {
  readonly publicUrl: string
  readonly organization: string
  readonly email: string
  readonly token: string
  readonly role: Role
  /** The name of the owner who invited, when known. */
  readonly invitedBy: string | null
  readonly expiresAt: Date
}): MailMessage => {
  const { email, organization, role, token } = options
  const link = invitationUrl(options.publicUrl, token)
  const inviter = options.invitedBy === null ? null : oneLine(options.invitedBy)
  const subject = oneLine(`Invitation to the status page team of ${organization}`)
  const invited =
    `${inviter === null ? "You have been invited" : `${inviter} has invited you`} (${email}) to the team ` +
    `of the status page of ${oneLine(organization)}, as ${roleWords[role]}.`
  const until = `The link works once, until ${options.expiresAt.toISOString().slice(0, 16).replace("T", " ")} UTC ` +
    `(${invitationHours} hours after it was sent):`
  const ignore = "If you did not expect this invitation, ignore this mail: nothing happens without the link."
  return {
    to: email,
    subject,
    text: [invited, "", until, link, "", ignore].join("\n"),
    html: `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(subject)}</title></head>` +
      `<body style="font-family:sans-serif;line-height:1.5;color:#111827">` +
      `<p>${escapeHtml(invited)}</p>` +
      `<p>${escapeHtml(until)}<br><a href="${escapeHtml(link)}">Accept the invitation</a></p>` +
      `<p>${escapeHtml(ignore)}</p></body></html>`
  }
}
