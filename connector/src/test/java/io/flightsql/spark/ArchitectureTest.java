package io.flightsql.spark;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

/**
 * The connector's layering, as docs/architecture.md draws it: dependencies point one way, from the
 * entry point and the catalog through the read and write paths, SQL building and dialects, down to
 * options and the Spark-free Flight client. Main code only. Streams sit between the two paths: the
 * read path's scan and table make a stream's source and sink, which read through an interface the
 * read path implements ({@code stream.SourceReads}) and write through the write path.
 */
@AnalyzeClasses(
    packages = "io.flightsql.spark",
    importOptions = ImportOption.DoNotIncludeTests.class)
class ArchitectureTest {
  private static final String ROOT = "io.flightsql.spark";

  @ArchTest
  static final ArchRule layersPointOneWay =
      layeredArchitecture()
          .consideringOnlyDependenciesInLayers()
          .layer("Entry")
          .definedBy(ROOT)
          .layer("Catalog")
          .definedBy(ROOT + ".catalog..")
          .layer("Read")
          .definedBy(ROOT + ".read..")
          .layer("Write")
          .definedBy(ROOT + ".write..")
          .layer("Stream")
          .definedBy(ROOT + ".stream..")
          .layer("Metrics")
          .definedBy(ROOT + ".metrics..")
          .layer("Sql")
          .definedBy(ROOT + ".sql..")
          .layer("Dialect")
          .definedBy(ROOT + ".dialect..")
          .layer("Config")
          .definedBy(ROOT + ".config..")
          .layer("Vector")
          .definedBy(ROOT + ".vector..")
          .layer("Types")
          .definedBy(ROOT + ".types..")
          .layer("Client")
          .definedBy(ROOT + ".client..")
          .whereLayer("Entry")
          .mayNotBeAccessedByAnyLayer()
          .whereLayer("Catalog")
          .mayOnlyBeAccessedByLayers("Entry")
          .whereLayer("Read")
          .mayOnlyBeAccessedByLayers("Entry", "Catalog")
          .whereLayer("Write")
          .mayOnlyBeAccessedByLayers("Entry", "Catalog", "Stream")
          .whereLayer("Stream")
          .mayOnlyBeAccessedByLayers("Entry", "Catalog", "Read")
          .whereLayer("Metrics")
          .mayOnlyBeAccessedByLayers("Read", "Write", "Stream")
          .whereLayer("Sql")
          .mayOnlyBeAccessedByLayers("Entry", "Catalog", "Read", "Write", "Stream")
          .whereLayer("Dialect")
          .mayOnlyBeAccessedByLayers("Entry", "Catalog", "Read", "Write", "Stream", "Sql")
          .whereLayer("Config")
          .mayOnlyBeAccessedByLayers(
              "Entry", "Catalog", "Read", "Write", "Stream", "Sql", "Dialect")
          .whereLayer("Vector")
          .mayOnlyBeAccessedByLayers("Entry", "Catalog", "Read", "Write", "Stream")
          .whereLayer("Types")
          .mayOnlyBeAccessedByLayers(
              "Entry", "Catalog", "Read", "Write", "Stream", "Sql", "Dialect", "Config", "Vector")
          .whereLayer("Client")
          .mayOnlyBeAccessedByLayers(
              "Entry", "Catalog", "Read", "Write", "Stream", "Sql", "Dialect", "Config");

  /**
   * The client's rooms: the session core ({@code client}) over metadata (what a server is and has)
   * and upload (DoPut), both over transport (channels, calls, streams, credentials, errors). An
   * upload names its table, so it may use metadata's table references; nothing points up.
   */
  @ArchTest
  static final ArchRule clientRoomsPointDown =
      layeredArchitecture()
          .consideringOnlyDependenciesInLayers()
          .layer("Session")
          .definedBy(ROOT + ".client")
          .layer("Metadata")
          .definedBy(ROOT + ".client.metadata..")
          .layer("Upload")
          .definedBy(ROOT + ".client.upload..")
          .layer("Transport")
          .definedBy(ROOT + ".client.transport..")
          .whereLayer("Session")
          .mayNotBeAccessedByAnyLayer()
          .whereLayer("Upload")
          .mayOnlyBeAccessedByLayers("Session")
          .whereLayer("Metadata")
          .mayOnlyBeAccessedByLayers("Session", "Upload")
          .whereLayer("Transport")
          .mayOnlyBeAccessedByLayers("Session", "Metadata", "Upload");

  @ArchTest
  static final ArchRule noCyclesBetweenPackages =
      slices().matching(ROOT + ".(*)..").should().beFreeOfCycles();

  @ArchTest
  static final ArchRule clientKnowsNothingOfSpark =
      noClasses()
          .that()
          .resideInAPackage(ROOT + ".client..")
          .should()
          .dependOnClassesThat()
          .resideInAPackage("org.apache.spark..")
          .because("the Flight client is tested and reused without a SparkSession");

  @ArchTest
  static final ArchRule readAndWriteNeverUseEachOther =
      noClasses()
          .that()
          .resideInAPackage(ROOT + ".read..")
          .should()
          .dependOnClassesThat()
          .resideInAPackage(ROOT + ".write..")
          .orShould()
          .dependOnClassesThat()
          .resideInAPackage(ROOT + ".catalog..");

  @ArchTest
  static final ArchRule streamsReadThroughAnInterface =
      noClasses()
          .that()
          .resideInAPackage(ROOT + ".stream..")
          .should()
          .dependOnClassesThat()
          .resideInAPackage(ROOT + ".read..")
          .because("the read path implements stream.SourceReads and hands it to the stream");

  @ArchTest
  static final ArchRule writeNeverUsesRead =
      noClasses()
          .that()
          .resideInAPackage(ROOT + ".write..")
          .should()
          .dependOnClassesThat()
          .resideInAPackage(ROOT + ".read..")
          .orShould()
          .dependOnClassesThat()
          .resideInAPackage(ROOT + ".catalog..");
}
