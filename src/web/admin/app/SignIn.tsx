import { useState } from "preact/hooks"

import type { User } from "../../../domain/Auth.js"
import { FailureMessage } from "./ui/feedback.js"
import { TextField } from "./ui/fields.js"
import { useSubmit } from "./ui/requests.js"

export const SignIn = (props: { readonly onSignedIn: (user: User) => void }) => {
  const [email, setEmail] = useState("")
  const [password, setPassword] = useState("")
  const { failure, busy, submit, fieldError } = useSubmit()

  const onSubmit = async (event: Event) => {
    event.preventDefault()
    const outcome = await submit((api) => api.auth.signIn({ payload: { email: email.trim(), password } }))
    if (outcome.ok) props.onSignedIn(outcome.value.user)
  }

  return (
    <main id="main" class="sign-in">
      <h1>Sign in to the status admin</h1>
      <form onSubmit={onSubmit} noValidate>
        <FailureMessage failure={failure} />
        <TextField
          id="signin-email"
          label="E-mail"
          type="email"
          autoComplete="username"
          required
          value={email}
          onInput={setEmail}
          error={fieldError("email")}
        />
        <TextField
          id="signin-password"
          label="Password"
          type="password"
          autoComplete="current-password"
          required
          value={password}
          onInput={setPassword}
          error={fieldError("password")}
        />
        <button type="submit" class="primary" disabled={busy}>{busy ? "Signing in…" : "Sign in"}</button>
      </form>
    </main>
  )
}
