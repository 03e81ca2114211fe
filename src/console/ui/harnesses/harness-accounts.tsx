import { useState } from "preact/hooks";
import type { Harness, HarnessAccount } from "../../../schemas/harnesses.ts";
import { Alert, useAction } from "../shared/use-action.tsx";
import { api } from "../shared/api.ts";
import { ConfirmStep, useStepOpener } from "../shared/confirm-button.tsx";
import { CopyButton } from "../shared/copy-button.tsx";
import { AUTH, harnessPath } from "./harness-labels.ts";
import { InlineForm } from "../shared/inline-form.tsx";
import type { ApplyHarnesses } from "./use-harnesses.ts";

const accountPath = (account: HarnessAccount) => `${harnessPath(account.harnessId)}/accounts/${encodeURIComponent(account.id)}`;

/** Adding or renaming answers with the account alone; the card shows the whole harness, read again. */
const reread = (harnessId: string, apply: ApplyHarnesses) => apply(() => api<Harness>("GET", harnessPath(harnessId)));

/** An account's detail; the command that logs it in (Atrium does not) is set apart to copy. */
function AccountDetail({ detail }: { detail: string }) {
  const [, before, command] = /^(.*run in a terminal: )(.+)$/s.exec(detail) ?? [];
  if (!before || !command) return <p class="detail">{detail}</p>;
  return (
    <div class="login-command">
      <p class="detail">{before.trim()}</p>
      <div class="copyable">
        <code class="harness-command">{command}</code>
        <CopyButton text={command} />
      </div>
    </div>
  );
}

/** One account: its login, and making it the active one, renaming or deleting it. */
function AccountRow({ account, apply }: { account: HarnessAccount; apply: ApplyHarnesses }) {
  const [mode, setMode] = useState<"view" | "rename" | "confirm-delete">("view");
  const action = useAction();
  const deleteOpener = useStepOpener();
  const act = (call: () => Promise<void>) =>
    action.run(async () => {
      await call();
      setMode("view");
    });
  const activate = () => act(() => apply(() => api<Harness>("POST", `${accountPath(account)}/activate`)));
  const rename = (label: string) =>
    act(async () => {
      await api<HarnessAccount>("PATCH", accountPath(account), { label });
      await reread(account.harnessId, apply);
    });
  const remove = () => act(() => apply(() => api<Harness>("DELETE", accountPath(account))));

  return (
    <li class="account" data-account={account.id}>
      <div class="account-title">
        <strong>{account.label}</strong>
        {account.isActive && <span class="badge ready">Active</span>}
        <span class={`badge ${account.authState}`}>{AUTH[account.authState]}</span>
      </div>
      {(account.email || account.authMethod) && <p class="detail">{[account.email, account.authMethod].filter(Boolean).join(" · ")}</p>}
      {account.detail && <AccountDetail detail={account.detail} />}
      {mode === "rename" ? (
        <InlineForm label="Label" initial={account.label} submitLabel="Save" busy={action.busy} onSubmit={rename} onCancel={() => setMode("view")} />
      ) : mode === "confirm-delete" ? (
        <ConfirmStep
          question="Delete account"
          note="The account goes, and its config home is deleted."
          busy={action.busy}
          small
          onConfirm={remove}
          onCancel={() => {
            deleteOpener.cancelled();
            setMode("view");
          }}
        />
      ) : (
        <div class="harness-actions">
          {!account.isActive && (
            <button type="button" class="quiet-button small" disabled={action.busy} onClick={activate}>
              Make active
            </button>
          )}
          <button type="button" class="quiet-button small" onClick={() => setMode("rename")}>
            Rename
          </button>
          {/* The default account is the CLI's own config home: the server keeps it (409). */}
          {account.profileKind === "profile" && (
            <button type="button" ref={deleteOpener.ref} class="quiet-button small" onClick={() => setMode("confirm-delete")}>
              Delete
            </button>
          )}
        </div>
      )}
      <Alert error={action.error} />
    </li>
  );
}

/** A new account with a config home of its own, optionally labelled. */
function AddAccountForm({ harnessId, apply }: { harnessId: string; apply: ApplyHarnesses }) {
  const [label, setLabel] = useState("");
  const action = useAction();
  const submit = (event: Event) => {
    event.preventDefault();
    void action.run(async () => {
      await api<HarnessAccount>("POST", `${harnessPath(harnessId)}/accounts`, label.trim() ? { label: label.trim() } : {});
      setLabel("");
      await reread(harnessId, apply);
    });
  };
  return (
    <form class="inline-form" onSubmit={submit}>
      <input
        aria-label="New account label"
        placeholder="Label (optional)"
        maxLength={100}
        value={label}
        onInput={(event) => setLabel(event.currentTarget.value)}
      />
      <button type="submit" disabled={action.busy}>
        Add account
      </button>
      <Alert error={action.error} />
    </form>
  );
}

/** The harness's accounts; Claude Code and Codex can have several, and the active one is what new sessions use. */
export function HarnessAccounts({ harness, apply }: { harness: Harness; apply: ApplyHarnesses }) {
  const { accounts, supportsMultipleAccounts } = harness.auth;
  const installed = harness.readiness.state !== "missing";
  if (accounts.length === 0 && !(installed && supportsMultipleAccounts)) return null;
  return (
    <section class="harness-accounts" aria-label={`${harness.name} accounts`}>
      <h3>Accounts</h3>
      <ul class="account-list">
        {accounts.map((account) => (
          <AccountRow key={account.id} account={account} apply={apply} />
        ))}
      </ul>
      {installed && supportsMultipleAccounts && <AddAccountForm harnessId={harness.id} apply={apply} />}
    </section>
  );
}
