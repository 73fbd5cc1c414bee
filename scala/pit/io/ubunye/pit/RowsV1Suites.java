package io.ubunye.pit;

import java.util.ArrayList;
import java.util.List;

import org.junit.runner.Description;
import org.junit.runner.RunWith;
import org.junit.runner.Runner;
import org.junit.runner.manipulation.Filter;
import org.junit.runner.manipulation.Filterable;
import org.junit.runner.manipulation.NoTestsRemainException;
import org.junit.runner.notification.Failure;
import org.junit.runner.notification.RunNotifier;

/**
 * The kernel's ScalaTest suites as JUnit 4 tests, the test form PIT (pitest) runs: one JUnit test
 * per ScalaTest test, so that PIT runs for each mutant only the tests that cover it, fastest first
 * (a single test per suite made every mutant of the line writer run the whole 40-second suite).
 * Only the suites that need no Spark session. Used by scripts/pit; not part of the sbt build.
 */
@RunWith(RowsV1Suites.PerTest.class)
public class RowsV1Suites {
    static final String[] SUITES = {
        "io.ubunye.spark.rowsv1.LineBufferSuite",
        "io.ubunye.spark.rowsv1.LineBufferFastPathSuite",
        "io.ubunye.spark.rowsv1.FloatTextSuite",
        "io.ubunye.spark.rowsv1.MultiplyHighSuite",
        "io.ubunye.spark.FixtureKindsSuite", // Kinds, Digests, SketchCells: the fixtures without a session
    };

    /** A child per ScalaTest test, named "Suite: test name"; filterable (PIT runs one child at a time). */
    public static class PerTest extends Runner implements Filterable {
        private final Class<?> testClass;
        private final List<String[]> tests = new ArrayList<>(); // {suite class, test name}
        private final List<Description> children = new ArrayList<>();

        public PerTest(Class<?> testClass) throws Exception {
            this.testClass = testClass;
            for (String suite : SUITES) {
                org.scalatest.Suite s = (org.scalatest.Suite) Class.forName(suite).getDeclaredConstructor().newInstance();
                scala.collection.Iterator<String> names = s.testNames().iterator();
                while (names.hasNext()) {
                    String name = names.next();
                    tests.add(new String[] {suite, name});
                    children.add(Description.createTestDescription(testClass, s.suiteName() + ": " + name));
                }
            }
        }

        @Override
        public Description getDescription() {
            Description d = Description.createSuiteDescription(testClass);
            children.forEach(d::addChild);
            return d;
        }

        @Override
        public void filter(Filter filter) throws NoTestsRemainException {
            for (int i = children.size() - 1; i >= 0; i--) {
                if (!filter.shouldRun(children.get(i))) {
                    children.remove(i);
                    tests.remove(i);
                }
            }
            if (children.isEmpty()) throw new NoTestsRemainException();
        }

        @Override
        public void run(RunNotifier notifier) {
            for (int i = 0; i < children.size(); i++) {
                Description d = children.get(i);
                notifier.fireTestStarted(d);
                try {
                    // -o with every event but failures and errors dropped (N C X E H L O P Q R M)
                    boolean passed = org.scalatest.tools.Runner.run(
                        new String[] {"-oNCXEHLOPQRM", "-s", tests.get(i)[0], "-t", tests.get(i)[1]});
                    if (!passed) notifier.fireTestFailure(new Failure(d, new AssertionError(d.getMethodName() + " failed")));
                } catch (Throwable t) {
                    notifier.fireTestFailure(new Failure(d, t));
                } finally {
                    notifier.fireTestFinished(d);
                }
            }
        }
    }
}
