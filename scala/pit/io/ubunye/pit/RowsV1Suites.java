package io.ubunye.pit;

import static org.junit.Assert.assertTrue;

import org.junit.Test;

/**
 * The kernel's ScalaTest suites as JUnit 4 tests, the test form PIT (pitest) runs: one test per suite,
 * failing when any test of the suite fails. Only the suites that need no Spark session (PIT runs the
 * covering tests once per mutant). Used by scripts/pit; not part of the sbt build.
 */
public class RowsV1Suites {
    private static void run(String suite) {
        // -o with every event but failures and errors dropped (N C X E H L O P Q R M)
        boolean passed = org.scalatest.tools.Runner.run(new String[] {"-oNCXEHLOPQRM", "-s", suite});
        assertTrue(suite + " failed", passed);
    }

    @Test public void lineBuffer() { run("io.ubunye.spark.rowsv1.LineBufferSuite"); }

    @Test public void lineBufferFastPath() { run("io.ubunye.spark.rowsv1.LineBufferFastPathSuite"); }

    @Test public void floatText() { run("io.ubunye.spark.rowsv1.FloatTextSuite"); }

    @Test public void multiplyHigh() { run("io.ubunye.spark.rowsv1.MultiplyHighSuite"); }
}
