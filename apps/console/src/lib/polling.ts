/**
 * A `refetchInterval` that re-reads a created session every 1.5 s while it is pending (or not read yet) and
 * stops once the wallet has finished with it.
 */
export function pollWhilePending(query: { state: { data?: { data: { status: string } } } }): number | false {
  return query.state.data?.data.status === "pending" || !query.state.data ? 1_500 : false;
}
