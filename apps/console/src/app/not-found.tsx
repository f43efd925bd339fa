import Link from "next/link";

export const metadata = { title: "Page not found · Credential Platform console" };

/** Any address the console has no page for (Next answers 404 with this instead of its default page). */
export default function NotFound() {
  return (
    <main className="sign-in">
      <p className="brand-line">Credential Platform</p>
      <div className="card">
        <h1>Page not found</h1>
        <p className="lead">
          The console has no page at this address. The link may be mistyped, or the page may have moved.
        </p>
        <p>
          <Link href="/" className="button-link">
            Go to the console home
          </Link>
        </p>
      </div>
    </main>
  );
}
