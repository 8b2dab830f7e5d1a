/**
 * The page an invitation mail links to (`/admin/invitation#<token>`): what the invitation is
 * for, then a name and a password for a new account, or the password of the address's existing
 * account. The token travels in the fragment, which no server, log or referrer sees; it is read
 * once and taken out of the address bar and the history at once.
 */
import { useEffect, useState } from "preact/hooks"

import type { InvitationPreview } from "../../../domain/Team.js"
import { roleDescription, roleLabel } from "./core/access.js"
import { call, type Outcome } from "./core/api.js"
import { FailureMessage, WhenText } from "./ui/feedback.js"
import { TextField } from "./ui/fields.js"
import { useSubmit } from "./ui/requests.js"
import { ResourceForm } from "./ui/resources.js"

/** An invitation token as the server issues them (base64url); anything else is not sent. */
const tokenPattern = /^[A-Za-z0-9_-]{16,128}$/

/** The token when the dashboard was opened at the invitation page, else null; clears it from the address bar. */
export const readInvitationToken = (): string | null => {
  if (!/^\/admin\/invitation\/?$/.test(location.pathname)) return null
  const token = location.hash.slice(1)
  history.replaceState(null, "", location.pathname)
  return token
}

const NotValid = () => (
  <>
    <p>
      This invitation link does not work: it has expired, was revoked, or has been used already. Ask an owner of the
      team for a new invitation.
    </p>
    <p>
      <a href="/admin">Go to the sign-in page</a>
    </p>
  </>
)

const AcceptForm = (
  props: { readonly token: string; readonly preview: InvitationPreview; readonly onAccepted: () => void }
) => {
  const { preview } = props
  const [name, setName] = useState("")
  const [password, setPassword] = useState("")
  const [repeated, setRepeated] = useState("")
  const [mismatch, setMismatch] = useState(false)
  const { failure, busy, submit, fieldError } = useSubmit()

  const accept = async () => {
    if (!preview.existingAccount && password !== repeated) {
      setMismatch(true)
      return
    }
    setMismatch(false)
    const payload = preview.existingAccount
      ? { token: props.token, password }
      : { token: props.token, name: name.trim(), password }
    const outcome = await submit((api) => api.auth.acceptInvitation({ payload }))
    if (outcome.ok) props.onAccepted()
  }

  return (
    <section aria-labelledby="invitation-form-title">
      <h2 id="invitation-form-title">{preview.existingAccount ? "Sign in to accept" : "Create your account"}</h2>
      {preview.existingAccount && (
        <p>This address has an account already: enter its password, and the account takes the new role.</p>
      )}
      <ResourceForm
        id="invitation-form"
        failure={failure}
        busy={busy}
        submitLabel={busy ? "Joining…" : "Join the team"}
        onSubmit={accept}
      >
        <TextField
          id="invitation-email"
          label="E-mail"
          type="email"
          autoComplete="username"
          readOnly
          value={preview.email}
          onInput={() => undefined}
        />
        {!preview.existingAccount && (
          <TextField
            id="invitation-name"
            label="Name"
            autoComplete="name"
            required
            value={name}
            onInput={setName}
            hint="How the team list shows you."
            error={fieldError("name")}
          />
        )}
        <TextField
          id="invitation-password"
          label={preview.existingAccount ? "Password" : "New password"}
          type="password"
          autoComplete={preview.existingAccount ? "current-password" : "new-password"}
          required
          value={password}
          onInput={setPassword}
          hint={preview.existingAccount ? undefined : "At least 12 characters."}
          error={fieldError("password")}
        />
        {!preview.existingAccount && (
          <TextField
            id="invitation-repeat"
            label="Repeat the new password"
            type="password"
            autoComplete="new-password"
            required
            value={repeated}
            onInput={setRepeated}
            error={mismatch ? "The two passwords differ." : undefined}
          />
        )}
      </ResourceForm>
    </section>
  )
}

export const Invitation = (props: { readonly token: string; readonly onAccepted: () => void }) => {
  const valid = tokenPattern.test(props.token)
  const [preview, setPreview] = useState<Outcome<InvitationPreview> | null>(null)

  useEffect(() => {
    document.title = "Invitation · Status admin"
    if (valid) void call((api) => api.auth.inspectInvitation({ payload: { token: props.token } })).then(setPreview)
  }, [])

  return (
    <main id="main" class="sign-in">
      <h1>Join the status admin</h1>
      {!valid
        ? <NotValid />
        : preview === null
        ? <p aria-busy="true" class="loading">Reading your invitation…</p>
        : !preview.ok
        ? preview.failure.kind === "notFound" ? <NotValid /> : <FailureMessage failure={preview.failure} />
        : (
          <>
            <p>
              You are invited as <strong>{roleLabel[preview.value.role]}</strong>{" "}
              ({roleDescription[preview.value.role]}) with the address <strong>{preview.value.email}</strong>.
            </p>
            <p class="muted">
              The link works until <WhenText at={preview.value.expiresAt} />.
            </p>
            <AcceptForm token={props.token} preview={preview.value} onAccepted={props.onAccepted} />
          </>
        )}
    </main>
  )
}
