package io.flightsql.spark.client.upload;

import org.apache.arrow.flight.sql.impl.FlightSql.CommandStatementIngest.TableDefinitionOptions;

/** Table-definition choices of an ingest: what to do when the table is missing or present. */
public enum IngestMode {
  /** Create the table when missing, append when present. */
  CREATE_OR_APPEND(
      TableDefinitionOptions.TableNotExistOption.TABLE_NOT_EXIST_OPTION_CREATE,
      TableDefinitionOptions.TableExistsOption.TABLE_EXISTS_OPTION_APPEND),
  /** Append to a table that must exist. */
  APPEND(
      TableDefinitionOptions.TableNotExistOption.TABLE_NOT_EXIST_OPTION_FAIL,
      TableDefinitionOptions.TableExistsOption.TABLE_EXISTS_OPTION_APPEND),
  /** Create a table that must not exist. */
  CREATE(
      TableDefinitionOptions.TableNotExistOption.TABLE_NOT_EXIST_OPTION_CREATE,
      TableDefinitionOptions.TableExistsOption.TABLE_EXISTS_OPTION_FAIL);

  private final TableDefinitionOptions options;

  IngestMode(
      TableDefinitionOptions.TableNotExistOption ifNotExist,
      TableDefinitionOptions.TableExistsOption ifExists) {
    this.options =
        TableDefinitionOptions.newBuilder().setIfNotExist(ifNotExist).setIfExists(ifExists).build();
  }

  TableDefinitionOptions options() {
    return options;
  }
}
