"use client";
import { useSession } from "../../../components/session";
import { Empty, PageHeader } from "../../../components/status";
import { SandboxWallet } from "./sandbox-wallet";

/**
 * The sandbox wallet: a holder wallet in this browser for trying issuance and verification end to end.
 * Sandbox only: in production it is refused (a real holder uses a real wallet).
 */
export default function WalletPage() {
  const session = useSession();
  return (
    <>
      <PageHeader title="Sandbox wallet">
        A holder wallet in this browser: it accepts credential offers and answers presentation requests over
        OpenID4VCI and OpenID4VP, as a phone wallet does. Its keys and credentials stay in this browser.
      </PageHeader>
      {session.environment === "sandbox" ? (
        <SandboxWallet />
      ) : (
        <div className="alert alert-error" role="alert" data-testid="wallet-refused">
          <strong>The sandbox wallet is for the sandbox environment only.</strong> Production credentials
          belong in a holder&apos;s own wallet. Switch the environment to Sandbox to use it.
        </div>
      )}
      <Empty>
        Sandbox only: keys are made by this browser (WebCrypto, not extractable) and kept with the credentials
        in its IndexedDB; clearing the site data removes them.
      </Empty>
    </>
  );
}
