export default function SignedOutLanding() {
  return (
    <main>
      <h1>Credential Platform</h1>
      <p>
        Issue, verify and manage digital credentials. Sign in with your staff account to manage organisations,
        issuers, credential configurations, verification policies and webhooks.
      </p>
      <p>Staff sign-in is not available yet in this build; use the REST API with an API key meanwhile.</p>
    </main>
  );
}
