package io.pointsman.ledger.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import org.junit.jupiter.api.Test;

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
