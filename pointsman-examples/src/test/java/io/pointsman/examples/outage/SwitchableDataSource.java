package io.pointsman.examples.outage;

import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * A data source that follows a database server across restarts (an embedded server comes back
 * on another port). While the server is stopped it points at the stopped server, so
 * connections are refused as they would be in an outage.
 */
final class SwitchableDataSource implements DataSource {
  private volatile DataSource current;

  SwitchableDataSource(DataSource initial) {
    this.current = initial;
  }

  void switchTo(DataSource next) {
    this.current = next;
  }

  @Override
  public Connection getConnection() throws SQLException {
    return current.getConnection();
  }

  @Override
  public Connection getConnection(String username, String password) throws SQLException {
    return current.getConnection(username, password);
  }

  @Override
  public PrintWriter getLogWriter() throws SQLException {
    return current.getLogWriter();
  }

  @Override
  public void setLogWriter(PrintWriter out) throws SQLException {
    current.setLogWriter(out);
  }

  @Override
  public void setLoginTimeout(int seconds) throws SQLException {
    current.setLoginTimeout(seconds);
  }

  @Override
  public int getLoginTimeout() throws SQLException {
    return current.getLoginTimeout();
  }

  @Override
  public Logger getParentLogger() throws SQLFeatureNotSupportedException {
    throw new SQLFeatureNotSupportedException();
  }

  @Override
  public <T> T unwrap(Class<T> type) throws SQLException {
    throw new SQLException("not a wrapper");
  }

  @Override
  public boolean isWrapperFor(Class<?> type) {
    return false;
  }
}
