package io.pointsman.examples;

import io.pointsman.ledger.EmbeddedPostgres;
import javax.sql.DataSource;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The examples' ledger database: the PostgreSQL a JDBC URL names, else an embedded server
 * started from a Maven artifact (stopped on {@link #close()}).
 */
public final class LedgerDatabase implements AutoCloseable {
  private final DataSource dataSource;
  private final EmbeddedPostgres embedded;
  private final String description;

  private LedgerDatabase(DataSource dataSource, EmbeddedPostgres embedded, String description) {
    this.dataSource = dataSource;
    this.embedded = embedded;
    this.description = description;
  }

  /**
   * Connects to the database a URL names, or starts an embedded one.
   *
   * @param url a JDBC URL, or null or blank for an embedded server
   * @return the database
   */
  public static LedgerDatabase open(String url) {
    if (url != null && !url.isBlank()) {
      PGSimpleDataSource ds = new PGSimpleDataSource();
      ds.setURL(url);
      return new LedgerDatabase(ds, null, url.replaceAll("password=[^&]*", "password=***"));
    }
    EmbeddedPostgres pg = EmbeddedPostgres.start();
    return new LedgerDatabase(pg.dataSource(), pg, "embedded PostgreSQL on port " + pg.port());
  }

  /**
   * Returns the data source.
   *
   * @return the data source
   */
  public DataSource dataSource() {
    return dataSource;
  }

  /**
   * Returns whether this is an embedded server.
   *
   * @return true when embedded
   */
  public boolean embedded() {
    return embedded != null;
  }

  /**
   * Describes the database for a log line, with any password masked.
   *
   * @return the description
   */
  public String description() {
    return description;
  }

  /** Stops an embedded server; nothing for a URL. */
  @Override
  public void close() {
    if (embedded != null) {
      embedded.close();
    }
  }
}
