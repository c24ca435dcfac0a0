package io.pointsman.ledger.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.postgresql.Driver;

class TestDatabasesTest {

  @Test
  void parsesAJdbcUrlWithCredentialsInTheQuery() {
    TestDatabases.Server s = TestDatabases.parse(
        "jdbc:postgresql://db.internal:6543/admin?user=ci&password=p%40ss");
    assertThat(s).isEqualTo(new TestDatabases.Server(TestDatabases.Source.ENVIRONMENT,
        "db.internal", 6543, "ci", "p@ss", "admin"));
    assertThat(s.toString()).doesNotContain("p@ss");
  }

  @Test
  void parsesALibpqUriWithDefaults() {
    TestDatabases.Server s = TestDatabases.parse("postgresql://bob:secret@10.0.0.5");
    assertThat(s).isEqualTo(new TestDatabases.Server(TestDatabases.Source.ENVIRONMENT,
        "10.0.0.5", 5432, "bob", "secret", "postgres"));
  }

  @Test
  void aDatabasesUrlCarriesTheServersCredentials() throws Exception {
    // Without a user in the URL the driver connects as the operating-system user, a role that
    // a fresh server does not have.
    TestDatabases.Server s = new TestDatabases.Server(TestDatabases.Source.ENVIRONMENT,
        "db.internal", 6543, "ci", "p@ss&x", "admin");
    Properties props = Driver.parseURL(s.jdbcUrl("pointsman_test_1"), null);
    assertThat(props.getProperty("user")).isEqualTo("ci");
    assertThat(props.getProperty("password")).isEqualTo("p@ss&x");
    assertThat(props.getProperty("PGDBNAME")).isEqualTo("pointsman_test_1");
    TestDatabases.Server local = new TestDatabases.Server(TestDatabases.Source.LOCAL,
        "127.0.0.1", 5432, "postgres", null, "postgres");
    assertThat(Driver.parseURL(local.jdbcUrl("x"), null).getProperty("user"))
        .isEqualTo("postgres");
    try (TestDatabase db = TestDatabases.create();
        Connection c = DriverManager.getConnection(db.jdbcUrl());
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT current_user")) {
      rs.next();
      assertThat(rs.getString(1)).isEqualTo(db.server().user());
    }
  }

  @Test
  void refusesANonPostgresUrl() {
    assertThatThrownBy(() -> TestDatabases.parse("mysql://localhost/x"))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void eachTestDatabaseIsFreshAndDroppedOnClose() throws Exception {
    String name;
    try (TestDatabase db = TestDatabases.create();
        Connection c = db.connect();
        Statement s = c.createStatement()) {
      name = db.name();
      assertThat(name).matches("pointsman_test_[0-9a-f]{16}");
      try (ResultSet rs = s.executeQuery("SELECT count(*) FROM information_schema.tables"
          + " WHERE table_schema NOT IN ('pg_catalog', 'information_schema')")) {
        rs.next();
        assertThat(rs.getLong(1)).isZero();
      }
    }
    TestDatabases.Server server = TestDatabases.server();
    try (Connection c = server.dataSource(server.adminDatabase()).getConnection();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(
            "SELECT count(*) FROM pg_database WHERE datname = '" + name + "'")) {
      rs.next();
      assertThat(rs.getLong(1)).isZero();
    }
  }
}
