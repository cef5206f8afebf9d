package io.flightsql.spark.write;

import io.flightsql.spark.client.FlightSqlSession;

/**
 * What makes a job's commit idempotent when the same job may be committed twice, as a streaming
 * query's epoch is when Spark runs it again after a failure or a restart: a mark kept on the server
 * with the rows. {@link JobCommitter} asks it, before it changes anything, whether the rows were
 * committed before (then it only drops the staging tables), and has it record the commit: inside
 * the transaction that moves the rows, where the server has transactions, so that the mark and the
 * rows commit together or not at all; after the rows otherwise. Driver only.
 */
public interface CommitGuard {
  /** No guard: every commit moves its rows. */
  CommitGuard NONE =
      new CommitGuard() {
        @Override
        public boolean committedBefore(FlightSqlSession session) {
          return false;
        }

        @Override
        public void record(FlightSqlSession session, byte[] transaction) {}
      };

  /** Whether this job's rows were committed before: asked before the commit changes anything. */
  boolean committedBefore(FlightSqlSession session);

  /**
   * Records the commit, in {@code transaction} (the one that moves the rows), or after the rows
   * when it is null (a server without transactions).
   *
   * @throws RuntimeException when the record cannot be made, which rolls the transaction back
   */
  void record(FlightSqlSession session, byte[] transaction);
}
