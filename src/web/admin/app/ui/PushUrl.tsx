/**
 * A push monitor's URL, shown the one time its token is: after creation, a change of type to
 * push, or a rotation. Only the token's hash is stored, so the operator copies it now.
 */
import { pushPath } from "../../../../domain/PushToken.js"

export const pushUrlOf = (token: string) => `${location.origin}${pushPath}${token}`

export const PushUrl = (props: { readonly id: string; readonly token: string }) => {
  const url = pushUrlOf(props.token)
  return (
    <div class="push-url" role="status">
      <div class="field">
        <label for={props.id}>Push URL</label>
        <input
          id={props.id}
          type="text"
          readOnly
          value={url}
          aria-describedby={`${props.id}-hint`}
          onFocus={(event) => event.currentTarget.select()}
        />
        <p id={`${props.id}-hint`} class="hint">
          Shown this once: copy it now (rotating the token makes a new one). The job calls it when it runs, such as{" "}
          <code>curl -fsS -m 10 --retry 3 "{url}?status=up&amp;msg=OK"</code>
          ; <code>status=down</code> reports a failure at once.
        </p>
      </div>
    </div>
  )
}
