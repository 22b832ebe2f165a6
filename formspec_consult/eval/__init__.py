"""The eval harness: measure the consultant on a corpus of business cases with simulated owners.

``formspec-consult eval`` runs every case of a corpus (``corpus/*.yaml`` here, or ``--corpus DIR``):
a fresh copy of the case's starter project, the real engine as the consultant (one provider
instance for the whole run), a simulated owner answering from the case's facts, drafts applied
through the local MCP server at the end, and a score per case (validity, alias-aware coverage,
module reuse, discipline, cost). ``--offline`` swaps in a scripted owner and the recorded
consultant of each bundled case, so CI runs the whole harness with no key and identical scores.

Modules: ``corpus`` (case files), ``owner`` (simulated owners), ``consultant`` (the one adapter to
the engine), ``recorded`` (offline consultants), ``scoring`` (pure), ``report`` (run ids, reports,
tables, compare), ``runner`` (the run).
"""
