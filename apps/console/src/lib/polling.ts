/**
 * A `refetchInterval` that re-reads a created session every 1.5 s while it is pending (or not read yet) and
 * stops once the wallet has finished with it, or once a read fails (the error is shown instead).
 */
export function pollWhilePending(query: {
  state: { status: string; data?: { data: { status: string } } };
}): number | false {
  if (query.state.status === "error") return false;
  return query.state.data?.data.status === "pending" || !query.state.data ? 1_500 : false;
}
