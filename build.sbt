// ubunye-spark: the rows-v1 table hash as a Catalyst aggregate.
// The Spark line is chosen with -DsparkVersion=4.1|3.5|... and the Scala binary
// version with -DscalaBinary=2.12|2.13; the lines are listed once, in
// project/spark-lines.json (read by project/SparkVersions.scala and the scripts).
// -DsparkRuntime=3.5.0 runs the tests on another release of the same line than the
// one compiled against (a jar built on x.y.N must load on x.y.0).

val spec = SparkVersions.selected
val scalaV = spec.scalaFor(SparkVersions.selectedScalaBinary)
val sparkRuntime = SparkVersions.selectedRuntime(spec)

ThisBuild / organization := "io.ubunye"
// POM metadata Maven Central asks for (scripts/pom-lint checks it). The repository URL is
// GitHub's own when built in GitHub Actions (the release workflow); elsewhere a placeholder
// that scripts/pom-lint --release refuses, so no release names a made-up repository.
val repoUrl = sys.env.get("GITHUB_REPOSITORY").map(r => s"${sys.env.getOrElse("GITHUB_SERVER_URL", "https://github.com")}/$r")
  .getOrElse("https://example.invalid/ubunye")
ThisBuild / licenses := Seq("Apache-2.0" -> url("https://www.apache.org/licenses/LICENSE-2.0.txt"))
ThisBuild / homepage := Some(url(repoUrl))
ThisBuild / scmInfo := Some(ScmInfo(url(repoUrl), s"scm:git:$repoUrl.git"))
ThisBuild / developers := List(Developer("ubunye", "The ubunye maintainers", "", url(repoUrl)))
ThisBuild / description := "rows-v1 table hashes as Spark SQL functions and a planner node (the ubunye run records plugin)"
// UBUNYE_RELEASE=1 or -Dubunye.release=true (the release workflow): also the sources and javadoc jars Maven
// Central requires (scaladoc costs minutes per line, so everyday builds leave them out).
val release = sys.props.get("ubunye.release").contains("true") || sys.env.get("UBUNYE_RELEASE").contains("1")
ThisBuild / version := IO.read(file("VERSION")).trim
ThisBuild / scalaVersion := scalaV

lazy val sparkVersionsJson = taskKey[Unit]("Prints the Spark version matrix as JSON")
lazy val checkClassFiles = taskKey[Int](
  "Checks that every class in the packaged jar has the class file version of the line's Java release")
lazy val exportJar = taskKey[File](
  "Packages the jar and puts it, with its description (.json), into python/ubunye/spark/jars/")
/** Spark and ScalaTest of -DsparkRuntime, for the tests only. */
lazy val SparkRuntime = config("sparkruntime").hide

/** Spark's jars for a line that the Maven repository does not serve (jars = "pyspark"),
  * fetched once by scripts/pyspark-jars; Scala's own jars come from the build's Scala.
  */
def pysparkJars(base: File, version: String, log: Logger): Seq[File] = {
  val dir = base / ".tools" / "pyspark-jars" / version
  if (!(dir / ".complete").exists) {
    log.info(s"Spark $version: fetching the jars of the pyspark archive (scripts/pyspark-jars)")
    val rc = scala.sys.process.Process(Seq((base / "scripts" / "pyspark-jars").getPath, version), base).!
    if (rc != 0) sys.error(s"scripts/pyspark-jars $version failed (exit $rc)")
  }
  (dir * "*.jar").get.filterNot(f => f.getName.matches("scala-(library|reflect|compiler)-.*")).sortBy(_.getName)
}

/** The class file major version of every class in `jar` (name -> major). */
def classFileMajors(jar: File): Map[String, Int] = {
  val zip = new java.util.zip.ZipFile(jar)
  try {
    import scala.collection.JavaConverters._
    zip.entries.asScala.filter(_.getName.endsWith(".class")).map { e =>
      val in = new java.io.DataInputStream(zip.getInputStream(e))
      try {
        require(in.readInt() == 0xCAFEBABE, s"${e.getName} in $jar is not a class file")
        in.readUnsignedShort() // minor
        e.getName -> in.readUnsignedShort()
      } finally in.close()
    }.toMap
  } finally zip.close()
}

/** Writes `target` whole by a rename: a JVM that has the old jar open (a running Spark) keeps
  * reading the old file, where a copy in place would corrupt it. */
def replaceWhole(target: File)(write: File => Unit): Unit = {
  val tmp = target.getParentFile / s".${target.getName}.tmp"
  write(tmp)
  java.nio.file.Files.move(tmp.toPath, target.toPath,
    java.nio.file.StandardCopyOption.REPLACE_EXISTING, java.nio.file.StandardCopyOption.ATOMIC_MOVE)
}

lazy val root = (project in file("."))
  .configs(SparkRuntime)
  .settings(
    name := s"ubunye-spark_${spec.short}",
    moduleName := name.value, // keep the dot; crossVersion appends _2.13: ubunye-spark_4.1_2.13
    crossScalaVersions := Seq(scalaV),
    // One output folder per Spark line and Scala version, so switching never mixes classes.
    target := baseDirectory.value / "target" / s"spark-${spec.short}_${CrossVersion.binaryScalaVersion(scalaV)}",
    Compile / scalaSource := baseDirectory.value / "scala" / "src" / "main" / "scala",
    Test / scalaSource := baseDirectory.value / "scala" / "src" / "test" / "scala",
    Compile / unmanagedSourceDirectories ++= spec.shimDirs.map { d =>
      val dir = baseDirectory.value / "scala" / "src" / "main" / d
      if (!dir.isDirectory) sys.error(s"project/spark-lines.json: Spark ${spec.short} names a missing shim folder $dir")
      dir
    },
    Test / unmanagedSourceDirectories ++=
      spec.shimDirs.map(d => baseDirectory.value / "scala" / "src" / "test" / d)
        .filter(_.exists),
    Compile / javaSource := baseDirectory.value / "scala" / "src" / "main" / "java",
    Test / javaSource := baseDirectory.value / "scala" / "src" / "test" / "java",
    Compile / resourceDirectory := baseDirectory.value / "scala" / "src" / "main" / "resources",
    Test / resourceDirectory := baseDirectory.value / "scala" / "src" / "test" / "resources",
    // Spark brings Scala: the library is `provided` too, so the POM lists nothing to add.
    autoScalaLibrary := false,
    libraryDependencies ++= Seq(
      "org.scala-lang" % "scala-library" % scalaV % Provided,
      "org.scalatest" %% "scalatest" % "3.2.19" % Test
    ),
    libraryDependencies ++= (spec.jars match {
      case "maven" => Seq("org.apache.spark" %% "spark-sql" % spec.full % Provided)
      case "pyspark" => Nil
      case other => sys.error(s"project/spark-lines.json: Spark ${spec.short}: unknown jars '$other'")
    }),
    // A line the Maven repository lacks compiles and tests against the pyspark archive's
    // jars, which are not packaged and not in the POM (Spark is provided, as for the others).
    Compile / unmanagedJars ++= (if (spec.jars == "pyspark")
      Attributed.blankSeq(pysparkJars(baseDirectory.value, spec.full, streams.value.log)) else Nil),
    Test / unmanagedJars ++= (if (spec.jars == "pyspark")
      Attributed.blankSeq(pysparkJars(baseDirectory.value, spec.full, streams.value.log)) else Nil),
    pomPostProcess := { node =>
      if (spec.jars != "pyspark") node
      else {
        import scala.xml._
        import scala.xml.transform._
        val spark =
          <dependency>
            <groupId>org.apache.spark</groupId>
            <artifactId>spark-sql_{scalaBinaryVersion.value}</artifactId>
            <version>{spec.full}</version>
            <scope>provided</scope>
          </dependency>
        new RuleTransformer(new RewriteRule {
          override def transform(n: Node): Seq[Node] = n match {
            case e: Elem if e.label == "dependencies" => e.copy(child = spark +: e.child)
            case other => other
          }
        }).transform(node).head
      }
    },
    scalacOptions ++= Seq("-deprecation", "-feature", "-unchecked", "-release", spec.release),
    javacOptions ++= Seq("--release", spec.release),
    // The jar's own version and the Spark/Scala line it was built for.
    Compile / sourceGenerators += Def.task {
      val out = (Compile / sourceManaged).value / "io" / "ubunye" / "spark" / "BuildInfo.scala"
      IO.write(out,
        s"""package io.ubunye.spark
           |
           |/** Generated by build.sbt: what this jar is and what it was built for. */
           |object BuildInfo {
           |  /** The plugin version (the repository's VERSION file). */
           |  val version: String = "${version.value}"
           |  /** The Spark line ("major.minor") the jar was compiled against. */
           |  val sparkVersion: String = "${spec.short}"
           |  /** The exact Spark release the jar was compiled against. */
           |  val sparkFullVersion: String = "${spec.full}"
           |  /** The Scala binary version ("2.13"). */
           |  val scalaBinaryVersion: String = "${scalaBinaryVersion.value}"
           |  /** One line for messages: "ubunye-spark 0.1.0 for Spark 4.1 / Scala 2.13". */
           |  override def toString: String =
           |    s"ubunye-spark $$version for Spark $$sparkVersion / Scala $$scalaBinaryVersion"
           |}
           |""".stripMargin)
      Seq(out)
    }.taskValue,
    // Tests start a local Spark in a forked JVM (module opens as spark-submit sets them).
    Test / fork := true,
    // Tests run on the packaged jar (its service file included), not on the class folders.
    exportJars := true,
    Test / baseDirectory := (ThisBuild / baseDirectory).value,
    Test / javaOptions ++= Seq(
      "-Xmx2g",
      "-XX:+IgnoreUnrecognizedVMOptions",
      "--add-opens=java.base/java.lang=ALL-UNNAMED",
      "--add-opens=java.base/java.lang.invoke=ALL-UNNAMED",
      "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED",
      "--add-opens=java.base/java.io=ALL-UNNAMED",
      "--add-opens=java.base/java.net=ALL-UNNAMED",
      "--add-opens=java.base/java.nio=ALL-UNNAMED",
      "--add-opens=java.base/java.util=ALL-UNNAMED",
      "--add-opens=java.base/java.util.concurrent=ALL-UNNAMED",
      "--add-opens=java.base/java.util.concurrent.atomic=ALL-UNNAMED",
      "--add-opens=java.base/jdk.internal.ref=ALL-UNNAMED",
      "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
      "--add-opens=java.base/sun.nio.cs=ALL-UNNAMED",
      "--add-opens=java.base/sun.security.action=ALL-UNNAMED",
      "--add-opens=java.base/sun.util.calendar=ALL-UNNAMED",
      "-Djdk.reflect.useDirectMethodHandle=false",
      "-Dio.netty.tryReflectionSetAccessible=true"
    ) ++ sys.env.get("UBUNYE_TEST_JVM_OPTS").toSeq.flatMap(_.split(' ').filter(_.nonEmpty)),
    // (scripts/test sets UBUNYE_TEST_JVM_OPTS: the test JVM's JIT and GC for short runs on 2 cores)
    Test / parallelExecution := false,
    Test / testOptions += Tests.Argument(TestFrameworks.ScalaTest, "-oD"),
    // -DsparkRuntime=3.5.0: the classes compiled against the line's newest patch run
    // their tests on that release of Spark instead (resolved in a configuration of its own).
    libraryDependencies ++= sparkRuntime.toSeq.flatMap(rt => Seq(
      "org.apache.spark" %% "spark-sql" % rt % SparkRuntime,
      "org.scala-lang" % "scala-library" % scalaV % SparkRuntime,
      "org.scalatest" %% "scalatest" % "3.2.19" % SparkRuntime)),
    Test / fullClasspath := (sparkRuntime match {
      case None => (Test / fullClasspath).value
      case Some(rt) =>
        val jars = Classpaths.managedJars(SparkRuntime, classpathTypes.value, update.value)
        val spark = jars.map(_.data.getName).filter(_.startsWith("spark-sql_"))
        if (spark != Seq(s"spark-sql_${scalaBinaryVersion.value}-$rt.jar"))
          sys.error(s"-DsparkRuntime=$rt resolved $spark")
        (Test / exportedProducts).value ++ (Compile / exportedProducts).value ++ jars
    }),
    sparkVersionsJson := println(SparkVersions.json),
    // Every class of the jar has the class file version of the line's Java release
    // (52 for Java 8, 61 for Java 17), so a Java 9+ call cannot slip into the 3.5 jar
    // unnoticed and the 4.x jars do not claim more than Java 17.
    checkClassFiles := {
      val jar = (Compile / packageBin).value
      val majors = classFileMajors(jar)
      val want = spec.classFileMajor
      val bad = majors.filter(_._2 != want)
      if (majors.isEmpty) sys.error(s"$jar has no classes")
      if (bad.nonEmpty)
        sys.error(s"${jar.getName}: ${bad.size} classes are not of class file version $want (Java ${spec.release}), " +
          s"e.g. ${bad.head._1} is ${bad.head._2}")
      want
    },
    // The jar inside the Python package, plus what it is: Python reads the JSON
    // instead of guessing names or reading environment variables. One pair of files
    // per line (ubunye-spark_3.5_2.12-0.1.0.jar/.json); only that line's older files
    // (and the single ubunye-spark.json of the one-line days) are replaced.
    exportJar := {
      val jar = (Compile / packageBin).value
      val major = checkClassFiles.value
      val dir = baseDirectory.value / "python" / "ubunye" / "spark" / "jars"
      val stem = jar.getName.stripSuffix(".jar")
      val linePrefix = s"${moduleName.value}_${scalaBinaryVersion.value}-" // ubunye-spark_3.5_2.12-
      IO.createDirectory(dir)
      val older = (dir * s"$linePrefix*").get
        .filter(f => f.getName.endsWith(".jar") || f.getName.endsWith(".json"))
        .filterNot(f => f.getName == s"$stem.jar" || f.getName == s"$stem.json")
      IO.delete(older :+ (dir / "ubunye-spark.json"))
      replaceWhole(dir / jar.getName)(tmp => IO.copyFile(jar, tmp, preserveLastModified = false))
      val description = Seq(
        "jar" -> jar.getName, "version" -> version.value, "spark" -> spec.short, "spark_full" -> spec.full,
        "scala" -> scalaBinaryVersion.value, "java_release" -> spec.release, "class_file_major" -> major,
        "extensions" -> "io.ubunye.spark.UbunyeSparkExtensions", "install" -> "io.ubunye.spark.Ubunye.install",
        "provider" -> "io.ubunye.spark.UbunyeSparkExtensionsProvider")
      val json = description.map {
        case (k, v: Int) => s""""$k": $v"""
        case (k, v) => s""""$k": "$v""""
      }.mkString("{", ", ", "}\n")
      replaceWhole(dir / s"$stem.json")(tmp => IO.write(tmp, json))
      dir / jar.getName
    },
    // `publish` writes io.ubunye:ubunye-spark_<line>_<scala>:<version> with its POM
    // (Spark and Scala `provided`) into target/maven-repo, a folder usable as a Maven
    // repository (spark.jars.repositories=file:///...).
    publishTo := Some(MavenCache("ubunye-local", baseDirectory.value / "target" / "maven-repo")),
    publishMavenStyle := true,
    // A local folder rebuilt at will: a republished version replaces the old files.
    publishConfiguration := publishConfiguration.value.withOverwrite(true),
    pomIncludeRepository := (_ => false),
    Compile / packageDoc / publishArtifact := release,
    Compile / packageSrc / publishArtifact := release,
    // Never the test suites' sources and scaladoc: not for users, and their scaladoc made
    // `publish` compile and document every line's tests (minutes per line; scripts/bundle-lint).
    Test / packageDoc / publishArtifact := false,
    Test / packageSrc / publishArtifact := false
  )

// The OpenLineage Spark listener's extension: a jar of its own (ubunye-spark-openlineage_<line>),
// never in the plugin jar. The listener (openlineage-spark) finds it through Java's service loader
// and it adds `ubunye_rows_v1` to the listener's COMPLETE event of each write the planner node
// observed. Compiled against openlineage-spark and the plugin, both `provided`: a cluster that runs
// the listener has its jar, and the plugin jar is on the session already. Built for the lines whose
// Spark the Maven repository serves (scripts/spark-lines --openlineage; not 4.3), by scripts/build-jar
// with the plugin jar, or alone:
//   scripts/sbt -DsparkVersion=4.1 openlineage/exportOpenLineage
// which puts the jar and its description (.json) into python/ubunye/spark/jars/openlineage/ (the
// wheel carries them; ubunye.spark.configure picks the session's) and the openlineage-spark jar
// it was built against into target/openlineage/ (for the integration tests).
val openLineageSparkVersion = "1.53.0"
lazy val exportOpenLineage = taskKey[File](
  "Packages the OpenLineage extension jar into python/ubunye/spark/jars/openlineage/ (with its description) and the openlineage-spark jar into target/openlineage/")
lazy val openlineage = (project in file("scala/openlineage"))
  .dependsOn(root % Provided)
  .settings(
    name := s"ubunye-spark-openlineage_${spec.short}",
    moduleName := name.value,
    target := (ThisBuild / baseDirectory).value / "target" / s"openlineage-${spec.short}_${CrossVersion.binaryScalaVersion(scalaV)}",
    autoScalaLibrary := false,
    libraryDependencies ++= Seq(
      "org.scala-lang" % "scala-library" % scalaV % Provided,
      "io.openlineage" % s"openlineage-spark_${CrossVersion.binaryScalaVersion(scalaV)}" % openLineageSparkVersion % Provided
        intransitive()
    ),
    // Only lines whose Spark the Maven repository serves (not 4.3): the build of every other
    // line still loads (a settings error would stop all of them); exporting the jar says why.
    libraryDependencies ++= (spec.jars match {
      case "maven" => Seq("org.apache.spark" %% "spark-sql" % spec.full % Provided)
      case _ => Seq.empty
    }),
    scalacOptions ++= Seq("-deprecation", "-feature", "-unchecked", "-release", spec.release),
    Compile / sourceGenerators += Def.task {
      val out = (Compile / sourceManaged).value / "io" / "ubunye" / "spark" / "openlineage" / "OpenLineageBuildInfo.scala"
      IO.write(out,
        s"""package io.ubunye.spark.openlineage
           |
           |/** Generated by build.sbt. */
           |object OpenLineageBuildInfo {
           |  /** The plugin version (the repository's VERSION file). */
           |  val version: String = "${version.value}"
           |  /** The openlineage-spark release the extension was compiled against. */
           |  val openLineageSpark: String = "$openLineageSparkVersion"
           |}
           |""".stripMargin)
      Seq(out)
    }.taskValue,
    exportOpenLineage := Def.taskDyn {
      if (spec.jars != "maven")
        sys.error(s"the OpenLineage extension builds on lines whose Spark the Maven repository serves, not ${spec.short}")
      Def.task(exportTo((Compile / packageBin).value, (Compile / managedClasspath).value.map(_.data),
        (ThisBuild / baseDirectory).value, version.value, spec, scalaBinaryVersion.value))
    }.value,
    // Published beside the plugin (target/maven-repo) and bundled with it per line (scripts/maven-bundle).
    publishTo := Some(MavenCache("ubunye-local", (ThisBuild / baseDirectory).value / "target" / "maven-repo")),
    publishMavenStyle := true,
    publishConfiguration := publishConfiguration.value.withOverwrite(true),
    pomIncludeRepository := (_ => false),
    description := "The OpenLineage Spark listener's extension: adds the ubunye_rows_v1 facet (rows-v1 table hashes) to its COMPLETE events",
    Compile / packageDoc / publishArtifact := release,
    Compile / packageSrc / publishArtifact := release,
    Test / packageDoc / publishArtifact := false,
    Test / packageSrc / publishArtifact := false
  )

def exportTo(jar: File, classpath: Seq[File], base: File, version: String, spec: SparkVersionSpec,
             scalaBinary: String): File = {
  val listener = classpath.find(_.getName.startsWith("openlineage-spark_"))
    .getOrElse(sys.error("openlineage-spark was not resolved"))
  val tests = base / "target" / "openlineage"
  IO.createDirectory(tests)
  IO.copyFile(listener, tests / listener.getName)
  // The package's copy: one jar and description per line; that line's older files are replaced.
  val dir = base / "python" / "ubunye" / "spark" / "jars" / "openlineage"
  IO.createDirectory(dir)
  val stem = jar.getName.stripSuffix(".jar")
  val older = (dir * s"ubunye-spark-openlineage_${spec.short}_$scalaBinary-*").get
    .filterNot(f => f.getName == s"$stem.jar" || f.getName == s"$stem.json")
  IO.delete(older)
  replaceWhole(dir / jar.getName)(tmp => IO.copyFile(jar, tmp, preserveLastModified = false))
  val json = Seq("jar" -> jar.getName, "version" -> version, "spark" -> spec.short, "spark_full" -> spec.full,
    "scala" -> scalaBinary, "java_release" -> spec.release, "openlineage_spark" -> openLineageSparkVersion,
    "factory" -> "io.ubunye.spark.openlineage.UbunyeOpenLineageFactory")
    .map { case (k, v) => s""""$k": "$v"""" }.mkString("{", ", ", "}\n")
  replaceWhole(dir / s"$stem.json")(tmp => IO.write(tmp, json))
  dir / jar.getName
}
