package io.flightsql.spark.config;

/** Where an option takes effect. */
public enum OptionScope {
  /** How to reach and talk to the server, for every operation. */
  CONNECTION("connection"),
  /** Used by reads only. */
  READ("read"),
  /** Used by writes only. */
  WRITE("write"),
  /** Used by reads and writes, differently. */
  READ_WRITE("read, write"),
  /** Used by streaming reads ({@code spark.readStream}) only. */
  STREAM_READ("streaming read"),
  /** Used by streaming writes ({@code df.writeStream}) only. */
  STREAM_WRITE("streaming write");

  private final String label;

  OptionScope(String label) {
    this.label = label;
  }

  /** The word shown in the generated documentation. */
  public String label() {
    return label;
  }
}
